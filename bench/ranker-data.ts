/**
 * Training and evaluation data of the learned ranker (src/search/learned-rank.ts): every query of
 * the golden set, the NL slice and the development benchmark is searched in hybrid mode with the
 * built-in model and the learned ranker, and each candidate's features are written with the
 * query's gold, so bench/train-ranker.ts can fit and compare weights offline without searching again.
 *
 *   npx tsx bench/ranker-data.ts [--sets golden,nl,devset] [--only owner/name] [--split tune|held-out] (NL slice only)
 *
 * Uses the indexes bench/model-quality.ts caches (run it first with `--providers builtin --split all`
 * for the sets wanted). Splits: by repository (bench/devset/split.json, bench/bench-repos.ts), golden
 * never trained on. Query ids are `owner/name:id`. Writes bench/results/ranker-data.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, type ConfigInput, type SearchResult } from '../src/index.js';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import type { GoldTarget } from '../src/eval/metrics.js';
import { parseQueriesFile, type EvalQuery } from '../src/eval/queries-file.js';
import { FEATURES } from '../src/search/learned-rank.js';
import { embedIndex, providerFor } from './embed-cache.js';
import { cacheOf, DEV_REPOS, fileOf, isLong, mirrorOf, splitOfRepo } from './mine-devset.js';
import { ensureNlTree, nlCacheOf, readManifest, readNlQueries } from './nl-slice.js';
import { writeResult } from './results.js';

/** One candidate: its place and feature values in FEATURES order. */
export interface DumpCandidate {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly f: number[];
}

export interface DumpQuery {
  readonly set: 'golden' | 'nl' | 'devset';
  /** golden: its kind; nl: `doc-comment`; devset: `long` or `short`. */
  readonly group: string;
  readonly split: 'tune' | 'held-out' | 'golden';
  readonly id: string;
  readonly expected: readonly GoldTarget[];
  /** Golden gold is "any of these files". */
  readonly anyFile: boolean;
  readonly cands: readonly DumpCandidate[];
}

const CONFIG = { embed: { provider: 'builtin' }, search: { ranking: { learned: true } } } as ConfigInput;
const LIMIT = 100;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

let embedder: Awaited<ReturnType<typeof providerFor>> | undefined;
let tag: string | undefined;
/** The vector db name tag bench/model-quality.ts gives the built-in model's copy of an index. */
async function vectorTag(root: string): Promise<string> {
  if (tag) return tag;
  embedder = await providerFor({ embed: { provider: 'builtin' } } as ConfigInput, root);
  const fp = await embedder.provider.fingerprint();
  return (tag = `builtin-${fp.model}-${fp.version}-${fp.dimensions}`.replace(/[^A-Za-z0-9.-]+/g, '_'));
}

const toCand = (r: SearchResult): DumpCandidate => ({ path: r.path, startLine: r.startLine, endLine: r.endLine, f: FEATURES.map((f) => r.ranker?.features[f] ?? 0) });

async function dumpTarget(root: string, db: string, queries: ReadonlyArray<Omit<DumpQuery, 'cands'> & { query: string }>, out: DumpQuery[]): Promise<void> {
  if (!existsSync(db)) {
    process.stderr.write(`missing ${db} (run bench/model-quality.ts first)\n`);
    return;
  }
  const engine = await createEngine({ root, db, env: {}, config: CONFIG, reroot: true });
  try {
    for (const { query, ...q } of queries) {
      const r = await engine.search(query, { limit: LIMIT, rerank: false, explain: true, mode: 'hybrid' });
      out.push({ ...q, cands: r.results.map(toCand) });
    }
  } finally {
    engine.close();
  }
}

interface GoldenQuery {
  readonly id: string;
  readonly query: string;
  readonly expected: string[];
  readonly kind: string;
}

async function golden(out: DumpQuery[]): Promise<void> {
  const cache = join(import.meta.dirname, '.semantic-cache');
  const root = join(cache, 'corpus');
  const raw = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'test', 'quality', 'queries.json'), 'utf8')) as GoldenQuery[];
  const queries = raw.map((q) => ({ set: 'golden' as const, group: q.kind, split: 'golden' as const, id: q.id, query: q.query, expected: q.expected.map((path) => ({ path })), anyFile: true }));
  await dumpTarget(root, join(cache, `${await vectorTag(root)}.vectors.db`), queries, out);
}

async function nl(mirrors: string, only: string | undefined, wanted: string | undefined, out: DumpQuery[]): Promise<void> {
  for (const entry of readManifest()) {
    if (only && entry.repo !== only) continue;
    const root = ensureNlTree(mirrors, entry);
    const split = splitOfRepo(entry.repo);
    if (wanted && split !== wanted) continue;
    const queries = readNlQueries(entry.repo).map((q: EvalQuery) => ({ set: 'nl' as const, group: 'doc-comment', split, id: `${entry.repo}:${q.id}`, query: q.query, expected: q.expected, anyFile: false }));
    // the lexical index and its vectors, made here when bench/model-quality.ts has not
    const lexicalDb = join(nlCacheOf(entry.repo), 'lexical.db');
    const indexer = await createEngine({ root, db: lexicalDb, env: {} });
    await indexer.index();
    indexer.close();
    const db = join(nlCacheOf(entry.repo), `${await vectorTag(root)}.db`);
    await embedIndex(lexicalDb, db, embedder!);
    await dumpTarget(root, db, queries, out);
    process.stderr.write(`nl ${entry.repo}\n`);
  }
}

async function devset(mirrors: string, only: string | undefined, out: DumpQuery[]): Promise<void> {
  for (const r of DEV_REPOS) {
    if ((only && r.repo !== only) || !existsSync(fileOf(r.repo))) continue;
    const queries = parseQueriesFile(readFileSync(fileOf(r.repo), 'utf8'), fileOf(r.repo));
    const trees = new CommitTrees(mirrorOf(mirrors, r.repo), cacheOf(r.repo));
    try {
      for (const [commit, group] of groupByCommit(queries)) {
        const base = await trees.at(commit);
        const t = await vectorTag(base.root);
        const db = base.dbPath.replace(/\.db$/, `.${t}.db`);
        // model-quality.ts keeps the vectors of a commit it indexed itself only in its pool: copy them in
        await embedIndex(base.dbPath, db, embedder!, join(cacheOf(r.repo), `vectors-${t}.db`));
        const qs = group.map((q) => ({ set: 'devset' as const, group: isLong(q.query) ? 'long' : 'short', split: splitOfRepo(r.repo), id: `${r.repo}:${q.id}`, query: q.query, expected: q.expected, anyFile: false }));
        await dumpTarget(base.root, db, qs, out);
      }
    } finally {
      await trees.close();
    }
    process.stderr.write(`devset ${r.repo}\n`);
  }
}

async function main(): Promise<void> {
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const sets = (arg('--sets') ?? 'golden,nl,devset').split(',');
  const only = arg('--only');
  const out: DumpQuery[] = [];
  if (sets.includes('golden')) await golden(out);
  try {
    if (sets.includes('nl')) await nl(mirrors, only, arg('--split'), out);
    if (sets.includes('devset')) await devset(mirrors, only, out);
  } finally {
    await embedder?.provider.close();
  }
  const file = writeResult(`ranker-data-${sets.join('+')}${arg('--split') ? `-${arg('--split')}` : ''}`, { features: FEATURES, queries: out });
  process.stdout.write(`${out.length} queries, ${out.reduce((n, q) => n + q.cands.length, 0)} candidates → ${file}\n`);
}

await main();
