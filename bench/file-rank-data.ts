/**
 * Training data of the learned file ranker (src/search/file-rank.ts): every long query (`long` in
 * query-kind.ts terms, 20+ terms so the file evidence runs) of a development set's half is searched
 * twice in the cached benchmark indexes (run-devset.ts's): with the shipped default (the pool of 100
 * chunks in its final order, the reference a ranker must beat) and with the file ranker on and
 * `explain` (each pool file's features). bench/train-file-ranker.ts fits and compares offline.
 *
 *   npx tsx bench/file-rank-data.ts [--sets large,devset] [--split tune] [--only owner/name,...] [--pool 200]
 *
 * `--pool N`: both searches take a pool of N chunks (`search.fusion.filePriorPool`; shipped 100), the
 * file `-poolN` added to the output's name.
 *
 * Tuning half only unless `--split held-out` is given (the final once-only check reads the live
 * benchmark, bench/run-devset.ts, instead). Writes bench/results/file-rank-data-<sets>-<split>.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createEngine, type ConfigInput, type Engine } from '../src/index.js';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import { parseQueriesFile, type EvalQuery } from '../src/eval/queries-file.js';
import { FILE_FEATURES } from '../src/search/file-rank.js';
import { classifyQuery } from '../src/search/query-kind.js';
import { isLongQuery } from '../src/search/query-parse.js';
import { splitOfRepo } from './bench-repos.js';
import { cacheOf, DEV_SET, fileOf, kindOf, LARGE_ISSUE_SET, mirrorOf, type DevSet } from './mine-devset.js';
import type { DumpQuery } from './ranker-data.js';
import { writeResult } from './results.js';

/** A pool chunk in the shipped default's final order, with its score there. */
export interface PoolChunk {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly score: number;
}

/** One query: its files as candidates (features in FILE_FEATURES order, lines 0) and the default's pool. */
export interface FileDumpQuery extends DumpQuery {
  /** The benchmark's kind (commit, issue) and the set (large, devset). */
  readonly kind: string;
  readonly pool: readonly PoolChunk[];
}

const POOL = Number(arg('--pool') ?? 100);
const POOL_CONFIG = POOL === 100 ? {} : { fusion: { filePriorPool: POOL } };
export const RANKER_ON: ConfigInput = { search: { ranking: { byKind: { long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1, fileRanker: true } } }, ...POOL_CONFIG } } as ConfigInput;
const BASE: ConfigInput | undefined = POOL === 100 ? undefined : ({ search: POOL_CONFIG } as ConfigInput);

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function dumpQuery(base: Engine, ranked: Engine, q: EvalQuery, meta: Omit<FileDumpQuery, 'cands' | 'pool' | 'expected' | 'anyFile' | 'id'> & { repo: string }): Promise<FileDumpQuery | undefined> {
  const pool = (await base.search(q.query, { limit: POOL, rerank: false })).results.map((r) => ({ path: r.path, startLine: r.startLine, endLine: r.endLine, score: r.score }));
  const traced = (await ranked.search(q.query, { limit: POOL, rerank: false, explain: true })).results;
  const files = new Map<string, number[]>();
  for (const r of traced) if (r.ranker?.model.startsWith('file-') && !files.has(r.path)) files.set(r.path, FILE_FEATURES.map((f) => r.ranker!.features[f] ?? 0));
  // the file evidence did not run (fewer than 20 terms): the ranker leaves this query alone
  if (files.size === 0) return undefined;
  const { repo, ...rest } = meta;
  return { ...rest, id: `${repo}:${q.id ?? ''}`, expected: q.expected, anyFile: false, pool, cands: [...files].map(([path, f]) => ({ path, startLine: 0, endLine: 0, f })) };
}

async function dumpSet(set: DevSet, split: string, only: readonly string[] | undefined, out: FileDumpQuery[]): Promise<void> {
  for (const r of set.repos) {
    if (splitOfRepo(r.repo) !== split || (only && !only.includes(r.repo))) continue;
    const file = fileOf(r.repo, set);
    if (!existsSync(file)) continue;
    const queries = parseQueriesFile(readFileSync(file, 'utf8'), file).filter((q) => classifyQuery(q.query, { long: isLongQuery(q.query) }) === 'long');
    const trees = new CommitTrees(mirrorOf('/work/.mirror', r.repo), cacheOf(r.repo, set), BASE);
    let n = 0;
    try {
      for (const [commit, group] of groupByCommit(queries)) {
        const base = await trees.at(commit);
        const ranked = await createEngine({ root: base.root, db: base.dbPath, env: {}, reroot: true, config: RANKER_ON });
        try {
          for (const q of group) {
            const d = await dumpQuery(base, ranked, q, { set: set.name === 'large' ? 'devset' : 'devset', group: set.name, split: split as 'tune', kind: kindOf(q.query), repo: r.repo });
            if (d) {
              out.push(d);
              n++;
            }
          }
        } finally {
          ranked.close();
        }
      }
    } finally {
      await trees.close();
    }
    process.stderr.write(`${set.name} ${r.repo}: ${n} of ${queries.length} long queries\n`);
  }
}

async function main(): Promise<void> {
  const sets = (arg('--sets') ?? 'large,devset').split(',');
  const split = arg('--split') ?? 'tune';
  const only = arg('--only')?.split(',');
  const out: FileDumpQuery[] = [];
  if (sets.includes('large')) await dumpSet(LARGE_ISSUE_SET, split, only, out);
  if (sets.includes('devset')) await dumpSet(DEV_SET, split, only, out);
  const file = writeResult(`file-rank-data-${sets.join('+')}-${split}${POOL === 100 ? '' : `-pool${POOL}`}`, { features: FILE_FEATURES, queries: out });
  process.stdout.write(`${out.length} queries, ${out.reduce((n, q) => n + q.cands.length, 0)} files → ${file}\n`);
}

await main();
