/**
 * Which benchmark index databases a run of bench/run-devset.ts reads (issue 18, the model lever):
 * the databases bench/reembed.ts copies and re-embeds for a candidate model, and no others. The
 * same selection as run-devset's (`--sets`, `--kinds`, `--split`, `--only`), shipped chunking only
 * (the `default` variant): per repository of the development benchmark and of the large group's
 * issue kind, the per-commit index of each commit its wanted queries are searched at (named by the
 * full commit, as src/eval/from-git.ts CommitTrees caches them); per repository of the doc-comment
 * kinds, its one index of the blanked tree.
 *
 * Layout of a cache root (the shared /work/team/devcache/ and every copy): `devset/<repo>/<sha>.db`,
 * `nlslice/<repo>/lexical.db`, `largeset/doc/<repo>/lexical.db`, `largeset/issue/<repo>/<sha>.db`,
 * each doc-comment index beside its `tree/` and `tree.commit`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupByCommit } from '../src/eval/from-git.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { splitOfRepo, type Split } from './bench-repos.js';
import type { QueryKind } from './devset-report.js';
import { DEV_SET, fileOf, kindOf, LARGE_ISSUE_SET, mirrorOf, type DevSet } from './mine-devset.js';
import { LARGE_DOC_SET, NL_SET, readManifest, type NlSet } from './nl-slice.js';

/** A set of run-devset's `--sets` as cached: its folder under a cache root. */
export type CacheSet = 'devset' | 'nlslice' | 'largeset/doc' | 'largeset/issue';

export interface PlannedDb {
  readonly set: CacheSet;
  readonly repo: string;
  readonly split: Split;
  /** The database's path under a cache root (`devset/colinhacks__zod/<sha>.db`). */
  readonly rel: string;
  /** Doc-comment indexes: the indexed tree beside it (`nlslice/<repo>/tree`), whose real path the index records as its root. */
  readonly tree?: string | undefined;
  /** Queries searched in it. */
  readonly queries: number;
}

export interface PlanOptions {
  readonly sets: readonly string[];
  readonly kinds: readonly QueryKind[];
  readonly split: 'tune' | 'held-out' | 'all';
  readonly only?: readonly string[] | undefined;
  /** Where the git mirrors are (`<owner>+<name>/repo`), to name each query's commit in full. */
  readonly mirrors: string;
}

const dirOf = (repo: string): string => repo.replace('/', '__');

function wanted(o: PlanOptions, repo: string): boolean {
  return (!o.only || o.only.includes(repo)) && (o.split === 'all' || splitOfRepo(repo) === o.split);
}

/** `commit` in full, as CommitTrees names its cached index; undefined when the mirror lacks it. */
function fullCommit(mirror: string, commit: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], { cwd: mirror, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function commitDbs(o: PlanOptions, set: DevSet, cacheSet: CacheSet): PlannedDb[] {
  const out: PlannedDb[] = [];
  for (const r of set.repos) {
    const file = fileOf(r.repo, set);
    if (!wanted(o, r.repo) || !existsSync(file)) continue;
    const queries = parseQueriesFile(readFileSync(file, 'utf8'), file).filter((q) => o.kinds.includes(kindOf(q.query)));
    const mirror = mirrorOf(o.mirrors, r.repo);
    for (const [commit, group] of groupByCommit(queries)) {
      const full = fullCommit(mirror, commit);
      if (!full) throw new Error(`${r.repo}: commit ${commit} is not in the mirror ${mirror}`);
      out.push({ set: cacheSet, repo: r.repo, split: splitOfRepo(r.repo), rel: join(cacheSet, dirOf(r.repo), `${full}.db`), queries: group.length });
    }
  }
  return out;
}

function docDbs(o: PlanOptions, set: NlSet, cacheSet: CacheSet): PlannedDb[] {
  if (!o.kinds.includes('doc')) return [];
  return readManifest(set)
    .filter((e) => wanted(o, e.repo))
    .map((e) => ({ set: cacheSet, repo: e.repo, split: splitOfRepo(e.repo), rel: join(cacheSet, dirOf(e.repo), 'lexical.db'), tree: join(cacheSet, dirOf(e.repo), 'tree'), queries: e.queries }));
}

/** The databases run-devset reads with these options, in the order it reads them. */
export function planDatabases(o: PlanOptions): PlannedDb[] {
  const out: PlannedDb[] = [];
  if (o.sets.includes('devset')) out.push(...commitDbs(o, DEV_SET, 'devset'));
  if (o.sets.includes('nl')) out.push(...docDbs(o, NL_SET, 'nlslice'));
  if (o.sets.includes('large')) out.push(...docDbs(o, LARGE_DOC_SET, 'largeset/doc'), ...commitDbs(o, LARGE_ISSUE_SET, 'largeset/issue'));
  return out;
}

/**
 * The cache root the benchmark reads from this checkout: the folder its `bench/.devset-cache`
 * link (or directory) lives in as a root of the layout above, i.e. the parent of the real
 * `devset/` folder, checked to hold the other two.
 */
export function cacheRootOf(links: { devset: string; nlslice: string; largeset: string }, realpath: (p: string) => string): string {
  const root = join(realpath(links.devset), '..');
  for (const [name, link] of Object.entries(links)) {
    if (realpath(link) !== join(root, name)) throw new Error(`${link} is not ${join(root, name)}: pass --from with the cache root`);
  }
  return root;
}

/** The three links of this checkout (bench/.devset-cache, .nlslice-cache, .largeset-cache). */
export const CACHE_LINKS = { devset: DEV_SET.cache, nlslice: NL_SET.cache, largeset: join(LARGE_DOC_SET.cache, '..') } as const;
