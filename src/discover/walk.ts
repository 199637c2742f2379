import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { FileCandidate, SkipReason } from '../core/file.js';
import { BUILTIN_DENYLIST, BUILTIN_SECRET_PATHS, BUILTIN_SECRETS, adjustList } from './denylist.js';
import { IgnoreRules } from './ignore-rules.js';
import { detectLanguage, isExtracted } from './language.js';
import { prefilteredIgnore, type PathFilter } from './prefiltered-ignore.js';

export interface WalkOptions {
  /** Real path of the root. */
  readonly root: string;
  readonly maxFileBytes: number;
  /** The size limit of PDFs and mail files (config `documents.maxBytes`); default maxFileBytes. */
  readonly maxDocumentBytes?: number | undefined;
  /** Extra gitignore-style patterns from config. */
  readonly ignore: readonly string[];
  readonly denylist: { readonly add: readonly string[]; readonly remove: readonly string[] };
}

/** A path discovery left out, and why. Directories end with '/'. */
export interface Skipped {
  readonly path: string;
  readonly reason: SkipReason;
}

export interface WalkSink {
  file(candidate: FileCandidate): void;
  skip(skipped: Skipped): void;
}

interface Filters {
  readonly deny: PathFilter;
  /** Secrets by base name. */
  readonly secrets: PathFilter;
  /** Secrets by root-relative path (`.kube/config`). */
  readonly secretPaths: PathFilter;
}

/** Is the real path `real` the root or inside it? */
export function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Secrets are file names: only the last segment is matched. */
function baseName(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1);
}

function toPosix(rel: string): string {
  return sep === '/' ? rel : rel.split(sep).join('/');
}

function readDir(dirAbs: string): Dirent[] | undefined {
  try {
    return readdirSync(dirAbs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return undefined;
  }
}

/** The built-in lists as adjusted by config, each behind a cheap exact pre-check (prefiltered-ignore.ts). */
function buildFilters(options: WalkOptions): Filters {
  return {
    deny: prefilteredIgnore(adjustList(BUILTIN_DENYLIST, options.denylist.remove, options.denylist.add)),
    secrets: prefilteredIgnore(adjustList(BUILTIN_SECRETS, options.denylist.remove)),
    secretPaths: prefilteredIgnore(adjustList(BUILTIN_SECRET_PATHS, options.denylist.remove)),
  };
}

/**
 * Walks the root depth-first in sorted order and reports every file to index and every path left
 * out with its reason. Symlinks are resolved: a link to a file inside the root is indexed under
 * the link's path; a link to a directory inside the root is skipped (its target is walked at its
 * real place); anything resolving outside the root is never followed.
 */
export function walk(options: WalkOptions, sink: WalkSink): void {
  walkDir(options, buildFilters(options), options.root, '', IgnoreRules.forRoot(options.root, options.ignore), sink);
}

type Entry = { readonly kind: 'dir' } | { readonly kind: 'file'; readonly candidate: FileCandidate } | { readonly kind: 'skip'; readonly skipped: Skipped };

const dirReason = (filters: Filters, rules: IgnoreRules, dirPath: string): SkipReason | undefined =>
  filters.deny.ignores(dirPath) ? 'denylist' : rules.ignores(dirPath) ? 'ignored' : undefined;

/** The name-based part of the decision for a file `rel`, reached through `target` when it is a link. */
function fileReason(filters: Filters, rules: IgnoreRules, rel: string, target = rel): SkipReason | undefined {
  const link = target !== rel; // a plain file: each list is asked once
  if (filters.secrets.ignores(baseName(rel)) || (link && filters.secrets.ignores(baseName(target)))) return 'secret';
  if (filters.secretPaths.ignores(rel) || (link && filters.secretPaths.ignores(target))) return 'secret';
  if (filters.deny.ignores(rel) || (link && filters.deny.ignores(target))) return 'denylist';
  return rules.ignores(rel) ? 'ignored' : undefined;
}

/**
 * The name-only part of the walk's decision for an entry `rel` (relative, `/`-separated, no
 * trailing slash) of a directory whose rules are `rules`, before anything is known about the
 * entry: why the walk would skip it as a directory, and why as a file (link targets and size
 * aside). For watchers, which must drop events inside ignored places without a stat.
 */
export interface NameFilter {
  dir(rules: IgnoreRules, rel: string): SkipReason | undefined;
  file(rules: IgnoreRules, rel: string): SkipReason | undefined;
}

export function nameFilter(options: WalkOptions): NameFilter {
  const filters = buildFilters(options);
  return {
    dir: (rules, rel) => dirReason(filters, rules, `${rel}/`),
    file: (rules, rel) => fileReason(filters, rules, rel),
  };
}

/** The walk's decision for one directory entry; `knownDir` when the listing already says so. */
function classify(options: WalkOptions, filters: Filters, rules: IgnoreRules, abs: string, rel: string, knownDir: boolean): Entry {
  if (knownDir) {
    // the listing already says what it is: no stat needed to decide whether to descend
    const reason = dirReason(filters, rules, `${rel}/`);
    return reason ? { kind: 'skip', skipped: { path: `${rel}/`, reason } } : { kind: 'dir' };
  }
  let stats: Stats;
  let real = abs;
  try {
    stats = lstatSync(abs);
  } catch {
    return { kind: 'skip', skipped: { path: rel, reason: 'unreadable' } };
  }
  if (stats.isSymbolicLink()) {
    try {
      real = realpathSync(abs);
      stats = statSync(real);
    } catch {
      return { kind: 'skip', skipped: { path: rel, reason: 'broken_symlink' } };
    }
    if (!isInside(options.root, real)) return { kind: 'skip', skipped: { path: rel, reason: 'symlink_outside_root' } };
    if (stats.isDirectory()) return { kind: 'skip', skipped: { path: `${rel}/`, reason: 'symlink_duplicate' } };
  }
  if (stats.isDirectory()) return classify(options, filters, rules, abs, rel, true);
  if (!stats.isFile()) return { kind: 'skip', skipped: { path: rel, reason: 'special_file' } };
  // a link is judged by its target's path too, or `notes.txt -> .env` would leak the secret
  const target = real === abs ? rel : toPosix(relative(options.root, real));
  const info = detectLanguage(rel);
  const limit = options.maxDocumentBytes !== undefined && isExtracted(info.language) ? options.maxDocumentBytes : options.maxFileBytes;
  const reason = fileReason(filters, rules, rel, target) ?? (stats.size > limit ? 'too_large' : undefined);
  if (reason) return { kind: 'skip', skipped: { path: rel, reason } };
  return { kind: 'file', candidate: { path: rel, absPath: real, size: stats.size, mtimeMs: Math.floor(stats.mtimeMs), language: info.language, contentType: info.contentType } };
}

function walkDir(options: WalkOptions, filters: Filters, dirAbs: string, dirRel: string, parentRules: IgnoreRules, sink: WalkSink): void {
  const entries = readDir(dirAbs);
  if (entries === undefined) {
    sink.skip({ path: dirRel === '' ? './' : `${dirRel}/`, reason: 'unreadable' });
    return;
  }
  // the root's own ignore files were read by IgnoreRules.forRoot
  const present = { gitignore: entries.some((e) => e.name === '.gitignore'), scryignore: entries.some((e) => e.name === '.scryignore') };
  const rules = dirRel === '' ? parentRules : parentRules.enter(dirAbs, dirRel, present);
  // dirAbs is normalized and a name holds no separator: plain concatenation, not path.join's normalizing
  const prefix = dirAbs.endsWith(sep) ? dirAbs : dirAbs + sep;
  for (const entry of entries) {
    const rel = dirRel === '' ? toPosix(entry.name) : `${dirRel}/${toPosix(entry.name)}`;
    const abs = prefix + entry.name;
    const decision = classify(options, filters, rules, abs, rel, entry.isDirectory());
    if (decision.kind === 'dir') walkDir(options, filters, abs, rel, rules, sink);
    else if (decision.kind === 'file') sink.file(decision.candidate);
    else sink.skip(decision.skipped);
  }
}

/** What the walk would decide for one path, or that it no longer exists. */
export type PathCheck =
  | { readonly path: string; readonly kind: 'file'; readonly candidate: FileCandidate }
  | { readonly path: string; readonly kind: 'skip'; readonly reason: SkipReason }
  | { readonly path: string; readonly kind: 'missing' }
  | { readonly path: string; readonly kind: 'directory' };

/**
 * Decides for a few paths (relative, `/`-separated) exactly what a full walk would, without
 * walking: each ancestor directory is checked (denylist, ignore files, links) and its ignore
 * files loaded on the way down. For editors and watchers that know what changed.
 */
export function checkPaths(options: WalkOptions, paths: readonly string[]): PathCheck[] {
  const filters = buildFilters(options);
  const rootRules = IgnoreRules.forRoot(options.root, options.ignore);
  return paths.map((path): PathCheck => {
    const segments = path.split('/');
    let rules = rootRules;
    for (let i = 0; i < segments.length - 1; i++) {
      const dirRel = segments.slice(0, i + 1).join('/');
      const dirAbs = join(options.root, ...segments.slice(0, i + 1));
      let stats: Stats;
      try {
        stats = lstatSync(dirAbs);
      } catch {
        return { path, kind: 'missing' };
      }
      if (stats.isSymbolicLink()) return { path, kind: 'skip', reason: 'symlink_duplicate' };
      if (!stats.isDirectory()) return { path, kind: 'missing' };
      const reason = dirReason(filters, rules, `${dirRel}/`);
      if (reason) return { path, kind: 'skip', reason };
      rules = rules.enter(dirAbs, dirRel);
    }
    const abs = join(options.root, ...segments);
    try {
      lstatSync(abs);
    } catch {
      return { path, kind: 'missing' };
    }
    const decision = classify(options, filters, rules, abs, path, false);
    if (decision.kind === 'file') return { path, kind: 'file', candidate: decision.candidate };
    if (decision.kind === 'skip') return { path, kind: 'skip', reason: decision.skipped.reason };
    return { path, kind: 'directory' };
  });
}

/**
 * Would a walk take a file created at `path` (relative, `/`-separated)? The name-based part of the
 * walk's decision, for files that do not exist yet: ancestors (existing or to be created) are
 * checked against the denylist and ignore files, links among them must stay inside the root,
 * then the file name against the secrets list, the denylist and the ignore rules.
 */
export function checkNewPath(options: WalkOptions, path: string): SkipReason | undefined {
  const filters = buildFilters(options);
  let rules = IgnoreRules.forRoot(options.root, options.ignore);
  const segments = path.split('/');
  for (let i = 0; i < segments.length - 1; i++) {
    const dirRel = segments.slice(0, i + 1).join('/');
    const dirAbs = join(options.root, ...segments.slice(0, i + 1));
    let exists = true;
    try {
      const stats = lstatSync(dirAbs);
      if (stats.isSymbolicLink()) {
        const real = realpathSync(dirAbs);
        if (!isInside(options.root, real)) return 'symlink_outside_root';
        return 'symlink_duplicate';
      }
      if (!stats.isDirectory()) return 'special_file';
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return 'broken_symlink';
      exists = false;
    }
    const reason = dirReason(filters, rules, `${dirRel}/`);
    if (reason) return reason;
    if (exists) rules = rules.enter(dirAbs, dirRel);
  }
  return fileReason(filters, rules, path);
}
