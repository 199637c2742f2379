import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { FileCandidate, SkipReason } from '../core/file.js';
import { BUILTIN_DENYLIST, BUILTIN_SECRETS, adjustList } from './denylist.js';
import { IgnoreRules } from './ignore-rules.js';
import { detectLanguage } from './language.js';

export interface WalkOptions {
  /** Real path of the root. */
  readonly root: string;
  readonly maxFileBytes: number;
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
  readonly deny: Ignore;
  readonly secrets: Ignore;
}

function isInside(root: string, real: string): boolean {
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

/**
 * Walks the root depth-first in sorted order and reports every file to index and every path left
 * out with its reason. Symlinks are resolved: a link to a file inside the root is indexed under
 * the link's path; a link to a directory inside the root is skipped (its target is walked at its
 * real place); anything resolving outside the root is never followed.
 */
export function walk(options: WalkOptions, sink: WalkSink): void {
  const filters: Filters = {
    deny: ignore().add(adjustList(BUILTIN_DENYLIST, options.denylist.remove, options.denylist.add)),
    secrets: ignore().add(adjustList(BUILTIN_SECRETS, options.denylist.remove)),
  };
  const rules = IgnoreRules.forRoot(options.root, options.ignore);
  walkDir(options, filters, options.root, '', rules, sink);
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
  for (const entry of entries) {
    const rel = dirRel === '' ? toPosix(entry.name) : `${dirRel}/${toPosix(entry.name)}`;
    const abs = join(dirAbs, entry.name);
    if (entry.isDirectory()) {
      // the listing already says what it is: no stat needed to decide whether to descend
      const dirPath = `${rel}/`;
      const reason = filters.deny.ignores(dirPath) ? 'denylist' : rules.ignores(dirPath) ? 'ignored' : undefined;
      if (reason) sink.skip({ path: dirPath, reason });
      else walkDir(options, filters, abs, rel, rules, sink);
      continue;
    }
    let stats: Stats;
    let real = abs;
    try {
      stats = lstatSync(abs);
    } catch {
      sink.skip({ path: rel, reason: 'unreadable' });
      continue;
    }
    if (stats.isSymbolicLink()) {
      try {
        real = realpathSync(abs);
        stats = statSync(real);
      } catch {
        sink.skip({ path: rel, reason: 'broken_symlink' });
        continue;
      }
      if (!isInside(options.root, real)) {
        sink.skip({ path: rel, reason: 'symlink_outside_root' });
        continue;
      }
      if (stats.isDirectory()) {
        sink.skip({ path: `${rel}/`, reason: 'symlink_duplicate' });
        continue;
      }
    }
    if (stats.isDirectory()) {
      const dirPath = `${rel}/`;
      const reason = filters.deny.ignores(dirPath) ? 'denylist' : rules.ignores(dirPath) ? 'ignored' : undefined;
      if (reason) sink.skip({ path: dirPath, reason });
      else walkDir(options, filters, abs, rel, rules, sink);
      continue;
    }
    if (!stats.isFile()) {
      sink.skip({ path: rel, reason: 'special_file' });
      continue;
    }
    // a link is judged by its target's path too, or `notes.txt -> .env` would leak the secret
    const target = real === abs ? rel : toPosix(relative(options.root, real));
    const reason: SkipReason | undefined = filters.secrets.ignores(baseName(rel)) || filters.secrets.ignores(baseName(target))
      ? 'secret'
      : filters.deny.ignores(rel) || filters.deny.ignores(target)
        ? 'denylist'
        : rules.ignores(rel)
          ? 'ignored'
          : stats.size > options.maxFileBytes
            ? 'too_large'
            : undefined;
    if (reason) {
      sink.skip({ path: rel, reason });
      continue;
    }
    const info = detectLanguage(rel);
    sink.file({ path: rel, absPath: real, size: stats.size, mtimeMs: Math.floor(stats.mtimeMs), language: info.language, contentType: info.contentType });
  }
}
