/**
 * The fixed split of the development benchmark and its frozen held-out slice:
 * bench/devset/split.json records which repositories tune and which are held out (by repository,
 * never by query), the query counts per kind and half, and the SHA-256 of every held-out query
 * file. test/unit/eval/bench-split.test.ts recomputes all of it, so a held-out query that is added,
 * edited or dropped, or a repository that changes halves, fails the tests until the manifest is
 * re-frozen on purpose:
 *
 *   npx tsx bench/freeze-split.ts        # after mining; commit bench/devset/split.json with the data
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BENCH_REPOS, LARGE_REPOS, type Split } from './bench-repos.js';
import { fileOf, kindOf, LARGE_ISSUE_SET } from './mine-devset.js';
import { LARGE_DOC_SET, nlFileOf } from './nl-slice.js';

export const SPLIT_FILE = join(import.meta.dirname, 'devset', 'split.json');

export interface SplitManifest {
  readonly rule: string;
  readonly repos: Record<Split, string[]>;
  readonly languages: Record<Split, string[]>;
  /** Queries per half and kind. */
  readonly queries: Record<Split, { commit: number; issue: number; doc: number }>;
  /** `bench/...` path of each held-out query file → its SHA-256. */
  readonly frozen: Record<string, string>;
  /** The large-repository group (LARGE_REPOS), split and frozen the same way, apart. */
  readonly large?: LargeManifest | undefined;
}

export interface LargeManifest {
  readonly repos: Record<Split, string[]>;
  readonly queries: Record<Split, { issue: number; doc: number }>;
  readonly frozen: Record<string, string>;
}

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '') : []);
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The manifest as the files on disk make it now. */
export function splitManifest(): SplitManifest {
  const repos: Record<Split, string[]> = { tune: [], 'held-out': [] };
  const languages: Record<Split, string[]> = { tune: [], 'held-out': [] };
  const queries: SplitManifest['queries'] = { tune: { commit: 0, issue: 0, doc: 0 }, 'held-out': { commit: 0, issue: 0, doc: 0 } };
  const frozen: Record<string, string> = {};
  const root = join(import.meta.dirname, '..');
  for (const r of BENCH_REPOS) {
    repos[r.split].push(r.repo);
    if (!languages[r.split].includes(r.language)) languages[r.split].push(r.language);
    for (const l of lines(fileOf(r.repo))) queries[r.split][kindOf((JSON.parse(l) as { query: string }).query)]++;
    queries[r.split].doc += lines(nlFileOf(r.repo)).length;
    if (r.split !== 'held-out') continue;
    for (const f of [fileOf(r.repo), nlFileOf(r.repo)]) if (existsSync(f)) frozen[relative(root, f)] = sha256(f);
  }
  return {
    rule: 'by repository (bench/bench-repos.ts); ranking is tuned on `tune` only; `held-out` files are frozen by digest',
    repos,
    languages,
    queries,
    frozen,
    large: largeManifest(root),
  };
}

/** The large group's part: each repository's one kind of query file (bench/largeset/doc or issue/). */
function largeManifest(root: string): LargeManifest {
  const repos: Record<Split, string[]> = { tune: [], 'held-out': [] };
  const queries: LargeManifest['queries'] = { tune: { issue: 0, doc: 0 }, 'held-out': { issue: 0, doc: 0 } };
  const frozen: Record<string, string> = {};
  for (const r of LARGE_REPOS) {
    repos[r.split].push(r.repo);
    const file = r.kind === 'doc' ? nlFileOf(r.repo, LARGE_DOC_SET) : fileOf(r.repo, LARGE_ISSUE_SET);
    queries[r.split][r.kind] += lines(file).length;
    if (r.split === 'held-out' && existsSync(file)) frozen[relative(root, file)] = sha256(file);
  }
  return { repos, queries, frozen };
}

if (process.argv[1] === import.meta.filename) {
  const m = splitManifest();
  writeFileSync(SPLIT_FILE, `${JSON.stringify(m, null, 1)}\n`);
  process.stderr.write(`${SPLIT_FILE}: ${JSON.stringify(m.queries)}\n`);
}
