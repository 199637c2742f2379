/**
 * Recall of long issue-like queries (issue 18, longpool): for each tuning-half issue text, is each
 * gold file in the lexical pool of 100 / 200 / 300 chunks (the list the model's file prior
 * reorders), and in the files of the model's top 100 / 300 / 1,000 chunks (whole-query vector)?
 * With `--recall N` instead: which gold files the model's own file candidates
 * (`search.fusion.filePriorRecall` N, `filePriorRecallAt` from `--at`, default 0.5) bring into the
 * list, and at which file rank they end. Tuning half only (it is for deciding what to build).
 *
 *   npx tsx bench/long-pool.ts [--sets large|devset] [--only owner/name,...] [--recall N [--at Q]]
 */
import type { ConfigInput, Engine } from '../src/index.js';
import { forEachTuneIssue, issueSetOf } from './tune-issues.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const LEXICAL = [100, 200, 300];
const VECTOR = [100, 300, 1000];

/** Counts the gold files the model's candidates brought in, by the file rank they end at. */
async function recalledGold(engine: Engine, query: string, gold: readonly string[], bump: (k: string) => void): Promise<void> {
  const hits = (await engine.search(query, { limit: 300, rerank: false, explain: true })).results;
  const files = [...new Set(hits.map((h) => h.path))];
  for (const h of hits) if (h.why?.includes("from the model's file candidates")) bump('recalled files');
  for (const g of gold) {
    const hit = hits.find((h) => h.path === g);
    if (!hit?.why?.includes("from the model's file candidates")) continue;
    const rank = files.indexOf(g) + 1;
    bump('recalled gold files');
    bump(rank <= 5 ? 'recalled gold at file rank 1-5' : rank <= 10 ? 'recalled gold at file rank 6-10' : rank <= 20 ? 'recalled gold at file rank 11-20' : 'recalled gold at file rank >20');
  }
}

async function main(): Promise<void> {
  // the lexical pool as file-prior-search.ts takes it: the long kind's ranking, no prior
  const recall = Number(arg('--recall') ?? 0);
  const config: ConfigInput = (
    recall > 0 ? { search: { fusion: { filePriorRecall: recall, filePriorRecallAt: Number(arg('--at') ?? 0.5) } } } : { search: { fusion: { filePrior: {} } } }
  ) as ConfigInput;
  const count = new Map<string, number>();
  const bump = (k: string): void => void count.set(k, (count.get(k) ?? 0) + 1);
  await forEachTuneIssue(issueSetOf(arg('--sets')), arg('--only')?.split(','), config, async (engine, q) => {
    const gold = [...new Set(q.expected.map((e) => e.path))];
    if (recall > 0) return recalledGold(engine, q.query, gold, bump);
    const lexical = (await engine.search(q.query, { limit: 300, rerank: false, mode: 'lexical' })).results.map((h) => h.path);
    const vector = (await engine.search(q.query, { limit: 1000, rerank: false, mode: 'vector' })).results.map((h) => h.path);
    bump('queries');
    for (const g of gold) {
      bump('gold files');
      const li = lexical.indexOf(g);
      const vi = vector.indexOf(g);
      for (const n of LEXICAL) if (li >= 0 && li < n) bump(`lexical ${n}`);
      for (const n of VECTOR) if (vi >= 0 && vi < n) bump(`vector ${n}`);
      for (const n of VECTOR) if ((li >= 0 && li < 100) || (vi >= 0 && vi < n)) bump(`lexical 100 ∪ vector ${n}`);
    }
    const anyIn = (n: number): boolean => gold.some((g) => { const i = lexical.indexOf(g); return i >= 0 && i < n; });
    for (const n of LEXICAL) if (anyIn(n)) bump(`queries with a gold file in lexical ${n}`);
  });
  for (const [k, v] of count) process.stdout.write(`${k}: ${v}\n`);
}

await main();
