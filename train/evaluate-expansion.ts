/**
 * Query expansion (models/expand/) on the held-out packages of the training data, with the
 * protocol of train/evaluate.ts (train/heldout.ts: each description ranks its own code unit among
 * 1,000 candidates, MRR@10): BM25 against BM25 + w × BM25 of the expansion terms (each weighted
 * by its strength), w chosen on the tuning half, reported on the test half, overall and per
 * language, with a paired bootstrap interval of the difference.
 *
 *   nice -n 10 npx tsx train/evaluate-expansion.ts --data /work/train-data/v4 [--table models/expand]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pairedBootstrap } from '../bench/quality-table.js';
import { parseExpansionTable, stemOf, type ExpansionTable } from '../src/search/expansion.js';
import { bm25Index, bm25Stats, countsOf, idf } from './bm25.js';
import { descriptionWords } from './expand-table.js';
import type { EvalSet } from './heldout.js';
import { codeText, evalSet, heldOutHalf, isValidationPackage, mean, reciprocalRanks } from './heldout.js';
import { readPairs } from './train.js';

const WEIGHTS = [0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1];

/** Expansion tokens of a description and their strengths (the query's own words and stems left out). */
export function expansionOf(description: string, table: ExpansionTable): Map<string, number> {
  const words = descriptionWords(description);
  const stems = new Set([...words].map(stemOf));
  const out = new Map<string, number>();
  for (const w of words) for (const t of table.terms.get(w) ?? []) if (!words.has(t.term) && !stems.has(stemOf(t.term))) out.set(t.term, Math.max(out.get(t.term) ?? 0, t.weight));
  return out;
}

/** n × n BM25 of each query's expansion terms against every code unit (strength-weighted). */
function expansionMatrix(set: EvalSet, table: ExpansionTable): Float32Array {
  const codes = countsOf(set.pairs.map(codeText));
  const stats = bm25Stats(codes);
  const ix = bm25Index(codes, stats);
  const n = set.pairs.length;
  const out = new Float32Array(n * n);
  set.pairs.forEach((p, q) => {
    for (const [t, strength] of expansionOf(p.description, table)) {
      const post = ix.postings.get(t);
      if (!post) continue;
      const w = strength * idf(stats, t);
      for (let k = 0; k < post.doc.length; k++) out[q * n + post.doc[k]!]! += w * post.w[k]!;
    }
  });
  return out;
}

function withExpansion(set: EvalSet, exp: Float32Array, w: number): EvalSet {
  const bm25 = new Float32Array(set.bm25.length);
  for (let i = 0; i < bm25.length; i++) bm25[i] = set.bm25[i]! + w * exp[i]!;
  return { ...set, bm25 };
}

const round = (x: number): number => Number(x.toFixed(4));

function main(): void {
  const { values } = parseArgs({ options: { data: { type: 'string', default: '/work/train-data/v4' }, table: { type: 'string', default: 'models/expand' } } });
  const table = parseExpansionTable(readFileSync(join(values.table!, 'terms.tsv'), 'utf8'), 'eval');
  const held = readPairs(values.data!).filter((p) => isValidationPackage(p.pkg));
  const tune = evalSet(held.filter((p) => heldOutHalf(p.pkg) === 'tune'));
  const test = evalSet(held.filter((p) => heldOutHalf(p.pkg) === 'test'));
  const tuneExp = expansionMatrix(tune, table);
  const tuning = WEIGHTS.map((w) => ({ w, mrr: round(mean(reciprocalRanks(withExpansion(tune, tuneExp, w), undefined, 1, 0))) }));
  const best = tuning.reduce((a, b) => (b.mrr > a.mrr + 1e-9 ? b : a));
  const testExp = expansionMatrix(test, table);
  const base = reciprocalRanks(test, undefined, 1, 0);
  const expanded = reciprocalRanks(withExpansion(test, testExp, best.w), undefined, 1, 0);
  const byLang = (rr: Float32Array): Record<string, number> => {
    const by = new Map<string, number[]>();
    test.pairs.forEach((p, i) => by.set(p.language, [...(by.get(p.language) ?? []), rr[i]!]));
    return Object.fromEntries([['all', round(mean(rr))], ...[...by].sort().map(([l, xs]) => [l, round(mean(xs))] as const)]);
  };
  const expandedQueries = test.pairs.filter((p) => expansionOf(p.description, table).size > 0).length;
  const diff = pairedBootstrap([...expanded].map((x, i) => x - base[i]!));
  process.stdout.write(`${JSON.stringify({ protocol: 'held-out test half, each description vs 1,000 candidates, MRR@10 (train/heldout.ts)', testPairs: test.pairs.length, expandedQueries, tuning, weight: best.w, bm25: byLang(base), expanded: byLang(expanded), difference: diff }, null, 2)}\n`);
}

main();
