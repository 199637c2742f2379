/**
 * The fixed baseline of issue 18: plain, field-less BM25 over 60-line windows (`syntax: false`,
 * only the body field weighted, every ranking technique off), beside the shipped lexical ranking
 * and the learned ranker, on the golden set and the NL slice (per kind, held-out repositories
 * marked). The devset is left out: a windows index of each of its ~350 commits costs as much as
 * the cache bench/model-quality.ts keeps.
 *
 *   npx tsx bench/bm25-windows.ts [--sets golden,nl]
 *
 * Windows indexes: bench/.semantic-cache/windows.db, bench/.nlslice-cache/<repo>/windows.db.
 * Writes bench/results/bm25-windows.json.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, type ConfigInput } from '../src/index.js';
import { scoreQuery, type GoldTarget, type QueryScore } from '../src/eval/metrics.js';
import type { EvalQuery } from '../src/eval/queries-file.js';
import { buildCorpus } from '../test/quality/corpus.js';
import { ensureNlTree, NL_REPOS, nlCacheOf, readManifest, readNlQueries } from './nl-slice.js';
import { formatTables, type Row, type Variant } from './quality-table.js';
import { environment, writeResult } from './results.js';

const OFF = { queryWeights: false, definitionBoost: 1, testToSource: 0, nonCode: 1, fileSupport: 0, fileCap: 0 };
const WINDOWS: ConfigInput = { syntax: false, search: { weights: { stem: 0, path: 0, symbol: 0, signature: 0, body: 1, parts: 0 }, ranking: OFF } } as ConfigInput;
const VARIANTS: ReadonlyArray<Variant & { config: ConfigInput; windows: boolean }> = [
  { name: 'lexical', config: {}, windows: false },
  { name: 'bm25-windows', config: WINDOWS, windows: true },
  { name: 'lexical/learned', config: { search: { ranking: { learned: true } } } as ConfigInput, windows: false },
];

interface Q extends EvalQuery {
  readonly group: string;
  readonly anyFile: boolean;
}

function anyFile(s: QueryScore): QueryScore {
  const accAt: Record<number, boolean> = {};
  for (const k of Object.keys(s.accAt).map(Number)) accAt[k] = s.firstFileRank !== null && s.firstFileRank <= k;
  return { ...s, accAt };
}

async function run(set: string, root: string, dbs: { lexical: string; windows: string }, queries: readonly Q[], rows: Row[]): Promise<void> {
  for (const v of VARIANTS) {
    const db = v.windows ? dbs.windows : dbs.lexical;
    const engine = await createEngine({ root, db, env: {}, config: v.config });
    try {
      await engine.index();
      for (const q of queries) {
        const r = await engine.search(q.query, { limit: 50, rerank: false, mode: 'lexical' });
        const s = scoreQuery(r.results, q.expected);
        rows.push({ set, group: q.group, id: q.id, variant: v.name, mode: r.meta.mode, score: q.anyFile ? anyFile(s) : s });
      }
    } finally {
      engine.close();
    }
  }
}

async function main(): Promise<void> {
  const sets = (process.argv[process.argv.indexOf('--sets') + 1] ?? 'golden,nl').split(',');
  const rows: Row[] = [];
  if (sets.includes('golden')) {
    const cache = join(import.meta.dirname, '.semantic-cache');
    const root = join(cache, 'corpus');
    if (!existsSync(root)) {
      mkdirSync(root, { recursive: true });
      buildCorpus(root);
    }
    const raw = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'test', 'quality', 'queries.json'), 'utf8')) as Array<{ id: string; query: string; expected: string[]; kind: string }>;
    const queries = raw.map((q) => ({ id: q.id, query: q.query, expected: q.expected.map((path): GoldTarget => ({ path })), group: q.kind, anyFile: true }));
    await run('golden', root, { lexical: join(cache, 'lexical.db'), windows: join(cache, 'windows.db') }, queries, rows);
  }
  if (sets.includes('nl')) {
    const split = new Map(NL_REPOS.map((r) => [r.repo, r.split]));
    for (const entry of readManifest()) {
      const root = ensureNlTree('/work/.mirror', entry);
      const queries = readNlQueries(entry.repo).map((q) => ({ ...q, group: `doc-comment ${split.get(entry.repo) ?? entry.split}`, anyFile: false }));
      await run('nl', root, { lexical: join(nlCacheOf(entry.repo), 'lexical.db'), windows: join(nlCacheOf(entry.repo), 'windows.db') }, queries, rows);
      process.stderr.write(`nl ${entry.repo}\n`);
    }
  }
  const env = environment();
  process.stdout.write(`load ${env.loadAvg1m.toFixed(2)}, commit ${env.commit ?? '?'}${env.dirty ? ' (dirty)' : ''}\n${formatTables(rows, VARIANTS, { devsetSplit: 'all' })}\n`);
  writeResult('bm25-windows', { sets, rows });
}

await main();
