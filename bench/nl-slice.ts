/**
 * The natural-language slice of the quality benchmarks: queries built like the training pairs of
 * the built-in model (doc comment's first sentence → its function), mined from repositories the
 * model was not trained on (listed for its engineer in /work/team/eval-repos.txt), searched in a
 * copy of each repository where the doc comments of the target functions are blanked. It is kind
 * (c), doc-comment queries, of the development benchmark (bench/bench-repos.ts).
 * This module holds the repository list and the scratch trees; bench/mine-nl-slice.ts mines,
 * bench/model-quality.ts measures.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseQueriesFile, type EvalQuery } from '../src/eval/queries-file.js';
import { BENCH_REPOS, LARGE_CACHE, LARGE_DIR, LARGE_REPOS, type BenchRepo } from './bench-repos.js';
import { blankComments, type DocComment } from './doc-comments.js';

export type NlRepo = BenchRepo;

/** Doc-comment queries are mined from every benchmark repository (bench/bench-repos.ts). */
export const NL_REPOS: readonly NlRepo[] = BENCH_REPOS;

export const NL_DIR = join(import.meta.dirname, 'nlslice');
export const NL_CACHE = join(import.meta.dirname, '.nlslice-cache');

/** A set of doc-comment queries: its repositories, where its query files and manifest are, where its trees and indexes go. */
export interface NlSet {
  readonly name: string;
  readonly repos: readonly NlRepo[];
  readonly dir: string;
  readonly cache: string;
}

/** The development benchmark's doc-comment kind. */
export const NL_SET: NlSet = { name: 'nl', repos: NL_REPOS, dir: NL_DIR, cache: NL_CACHE };
/** The large-repository group's doc-comment kind (bench/bench-repos.ts LARGE_REPOS). */
export const LARGE_DOC_SET: NlSet = { name: 'large', repos: LARGE_REPOS.filter((r) => r.kind === 'doc'), dir: join(LARGE_DIR, 'doc'), cache: join(LARGE_CACHE, 'doc') };

export const nlFileOf = (repo: string, set: NlSet = NL_SET): string => join(set.dir, `${repo.replace('/', '__')}.jsonl`);
export const nlCacheOf = (repo: string, set: NlSet = NL_SET): string => join(set.cache, repo.replace('/', '__'));
/** The scratch copy that is indexed: the repository at the mined commit, target doc comments blanked. */
export const nlTreeOf = (repo: string, set: NlSet = NL_SET): string => join(nlCacheOf(repo, set), 'tree');

/** What bench/nlslice/manifest.json records per repository. */
export interface NlManifestEntry extends NlRepo {
  readonly commit: string;
  readonly queries: number;
  /** Target doc comments blanked in the indexed copy: `path` → [[start, end], ...] (0-based lines). */
  readonly blanked: Record<string, Array<[number, number]>>;
}

export const MANIFEST = join(NL_DIR, 'manifest.json');
export const manifestOf = (set: NlSet): string => join(set.dir, 'manifest.json');

export function readManifest(set: NlSet = NL_SET): NlManifestEntry[] {
  const file = manifestOf(set);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { repos: NlManifestEntry[] }).repos : [];
}

export function readNlQueries(repo: string, set: NlSet = NL_SET): EvalQuery[] {
  return parseQueriesFile(readFileSync(nlFileOf(repo, set), 'utf8'), nlFileOf(repo, set));
}

const MAX_FILE = 1 << 20;

/**
 * Writes the tree of `commit` from the bare mirror `gitDir` into `into` (replaced), blob by blob:
 * files over 1 MiB and blobs missing from the snapshot are skipped (git archive would fail on them).
 */
export function exportTree(gitDir: string, commit: string, into: string): number {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  const ls = spawnSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-l', '-z', commit], { maxBuffer: 1 << 28 });
  if (ls.status !== 0) throw new Error(`git ls-tree ${commit} failed in ${gitDir}: ${ls.stderr.toString()}`);
  const entries = ls.stdout
    .toString('utf8')
    .split('\0')
    .filter((l) => l !== '')
    .map((l) => {
      const [meta, path] = l.split('\t') as [string, string];
      const [mode, type, sha, size] = meta.split(/\s+/) as [string, string, string, string];
      return { mode, type, sha, size: Number(size), path };
    })
    .filter((e) => e.type === 'blob' && e.mode !== '120000' && e.size <= MAX_FILE);
  const cat = spawnSync('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { input: entries.map((e) => e.sha).join('\n') + '\n', maxBuffer: 1 << 30 });
  const out = cat.stdout;
  let at = 0;
  let written = 0;
  for (const e of entries) {
    const nl = out.indexOf(10, at);
    const header = out.subarray(at, nl).toString('utf8');
    at = nl + 1;
    if (header.endsWith(' missing')) continue;
    const size = Number(header.split(' ')[2]);
    const body = out.subarray(at, at + size);
    at += size + 1;
    const file = join(into, e.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, body);
    written++;
  }
  return written;
}

/** Blanks the recorded doc comments in the scratch tree `root` (see blankComments). */
export function blankTree(root: string, blanked: Record<string, Array<[number, number]>>): void {
  for (const [path, spans] of Object.entries(blanked)) {
    const file = join(root, path);
    const comments: DocComment[] = spans.map(([start, end]) => ({ start, end, text: '' }));
    writeFileSync(file, blankComments(readFileSync(file, 'utf8'), comments));
  }
}

/**
 * The indexed copy of a mined repository, rebuilt from its mirror when absent: the tree at the
 * manifest's commit with the target doc comments blanked. Returns its root.
 */
export function ensureNlTree(mirrors: string, entry: NlManifestEntry, set: NlSet = NL_SET): string {
  const root = nlTreeOf(entry.repo, set);
  const stamp = join(nlCacheOf(entry.repo, set), 'tree.commit');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === entry.commit) return root;
  // a new tree makes every index of the old one stale
  rmSync(nlCacheOf(entry.repo, set), { recursive: true, force: true });
  exportTree(join(mirrors, entry.repo.replace('/', '+'), 'repo'), entry.commit, root);
  blankTree(root, entry.blanked);
  writeFileSync(stamp, entry.commit);
  return root;
}
