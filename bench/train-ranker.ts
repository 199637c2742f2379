/**
 * Trains the learned ranker's weights (src/search/learned-rank.ts) and compares them with lexical
 * ranking offline, on the candidates and features bench/ranker-data.ts wrote.
 *
 *   npx tsx bench/train-ranker.ts [--data ranker-data-golden+nl+devset] [--write] [--l2 0.01] [--epochs 300]
 *
 * Objective: pairwise logistic (RankNet): for every query of the tuning half (NL slice tune
 * repositories, devset tune ids; never golden or held-out), every pair of candidates with different
 * relevance (2: overlaps a gold function, 1: in a gold file, 0: neither; at most 400 pairs per
 * query, drawn with a seeded PRNG) adds log(1 + exp(−(s_better − s_worse))), each query weighing
 * the same; L2 on the weights; full-batch gradient descent. Two weight sets: `lexical` (lexical
 * candidates only, no vector features) and `hybrid`. The per-file diversity (cap, within) is then
 * picked on the tuning half by mean of file MRR@10 and function hit@10. Reports per set and kind,
 * on held-out and golden: lexical (the rule-based order of the same candidates), learned lexical
 * and learned hybrid, with paired bootstrap intervals against lexical (bench/quality-table.ts).
 * `--write` writes models/ranker/weights.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scoreQuery, type QueryScore } from '../src/eval/metrics.js';
import { FEATURES, type Diversity } from '../src/search/learned-rank.js';
import { capPerFile, dedupeOverlaps } from '../src/search/rank.js';
import type { DumpCandidate, DumpQuery } from './ranker-data.js';
import { formatTables, type Row, type Variant } from './quality-table.js';
import { readResult } from './results.js';
import { prng } from './stats.js';

const NF = FEATURES.length;
const VECTOR_FEATURES = new Set(FEATURES.flatMap((f, i) => (f.startsWith('cosine') ? [i] : [])));
const LEX_RANK = FEATURES.indexOf('lexicalRank');
const LEX = FEATURES.indexOf('lexical');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The candidates a lexical-only search would have: lexical ones, vector features zeroed. */
function lexicalView(q: DumpQuery): DumpQuery {
  return { ...q, cands: q.cands.filter((c) => c.f[LEX_RANK]! > 0).map((c) => ({ ...c, f: c.f.map((v, i) => (VECTOR_FEATURES.has(i) ? 0 : v)) })) };
}

function relevance(q: DumpQuery, c: DumpCandidate): number {
  const spans = q.expected.filter((g) => g.startLine !== undefined);
  if (spans.some((g) => g.path === c.path && c.startLine <= (g.endLine ?? g.startLine!) && g.startLine! <= c.endLine)) return 2;
  return q.expected.some((g) => g.path === c.path) ? 1 : 0;
}

const dot = (w: readonly number[], f: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < f.length; i++) s += f[i]! * w[i]!;
  return s;
};

interface QueryPairs {
  readonly f: readonly (readonly number[])[];
  readonly gain: readonly number[];
  /** 1 / the ideal DCG@10 of the query. */
  readonly norm: number;
  /** Index pairs (better, worse). */
  readonly pairs: ReadonlyArray<readonly [number, number]>;
}

const discount = (rank: number): number => (rank <= 10 ? 1 / Math.log2(1 + rank) : 0);

/** Each query's candidates, gains (2^relevance − 1) and a seeded sample of at most `maxPairs` pairs with different relevance. */
function pairsOf(queries: readonly DumpQuery[], maxPairs: number, seed: number): QueryPairs[] {
  const rand = prng(seed);
  const out: QueryPairs[] = [];
  for (const q of queries) {
    const rel = q.cands.map((c) => relevance(q, c));
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < rel.length; i++) for (let j = 0; j < rel.length; j++) if (rel[i]! > rel[j]!) pairs.push([i, j]);
    if (pairs.length === 0) continue;
    for (let k = pairs.length - 1; k > 0; k--) {
      const r = Math.floor(rand() * (k + 1));
      [pairs[k], pairs[r]] = [pairs[r]!, pairs[k]!];
    }
    const gain = rel.map((r) => 2 ** r - 1);
    const ideal = [...gain].sort((a, b) => b - a).reduce((s, g, i) => s + g * discount(i + 1), 0);
    out.push({ f: q.cands.map((c) => c.f), gain, norm: 1 / ideal, pairs: pairs.slice(0, maxPairs) });
  }
  return out;
}

/**
 * Pairwise logistic loss by full-batch gradient descent. `lambda`: each pair weighs |ΔNDCG@10| of
 * swapping the two at the current ranking (LambdaRank), else each query's pairs weigh the same (RankNet).
 */
export function trainPairwise(queries: readonly DumpQuery[], options: { l2: number; epochs: number; rate: number; seed: number; lambda: boolean }): number[] {
  const data = pairsOf(queries, options.lambda ? 3000 : 400, options.seed);
  const w = new Array<number>(NF).fill(0);
  w[LEX] = 1;
  for (let e = 0; e < options.epochs; e++) {
    const g = new Array<number>(NF).fill(0);
    let total = 0;
    for (const q of data) {
      const s = q.f.map((f) => dot(w, f));
      const rank = new Array<number>(s.length);
      s.map((v, i) => [v, i] as const)
        .sort((a, b) => b[0] - a[0])
        .forEach(([, i], r) => (rank[i] = r + 1));
      for (const [i, j] of q.pairs) {
        const weight = options.lambda ? Math.abs(q.gain[i]! - q.gain[j]!) * Math.abs(discount(rank[i]!) - discount(rank[j]!)) * q.norm : 1 / q.pairs.length;
        if (weight === 0) continue;
        total += weight;
        const c = -weight / (1 + Math.exp(s[i]! - s[j]!)); // d/dm log(1 + e^-m), m = s_i − s_j
        const fi = q.f[i]!;
        const fj = q.f[j]!;
        for (let k = 0; k < NF; k++) g[k]! += c * (fi[k]! - fj[k]!);
      }
    }
    if (total === 0) break;
    for (let k = 0; k < NF; k++) w[k] = w[k]! - options.rate * (g[k]! / total + options.l2 * w[k]!);
  }
  return w;
}

/** The candidates ordered by `score`, overlaps dropped, the diversity applied: what search would return. */
function rankOffline(q: DumpQuery, score: (c: DumpCandidate) => number, div: Diversity): DumpCandidate[] {
  const scored = q.cands.map((c) => ({ ...c, score: Math.exp(score(c)) })).sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine);
  return capPerFile(dedupeOverlaps(scored), div.cap, div.within).slice(0, 50);
}

/** Golden gold is any expected file. */
function scoreOf(q: DumpQuery, hits: readonly DumpCandidate[]): QueryScore {
  const s = scoreQuery(hits, q.expected);
  if (!q.anyFile) return s;
  const accAt: Record<number, boolean> = {};
  for (const k of Object.keys(s.accAt).map(Number)) accAt[k] = s.firstFileRank !== null && s.firstFileRank <= k;
  return { ...s, accAt };
}

/** Mean of file MRR@10 and function hit@10 (file Acc@10 where there are no spans): what the diversity is picked on. */
function objective(qs: readonly DumpQuery[], score: (c: DumpCandidate) => number, div: Diversity): number {
  let sum = 0;
  for (const q of qs) {
    const s = scoreOf(q, rankOffline(q, score, div));
    sum += s.reciprocalRank + (s.functionHitAt ? (s.functionHitAt[10] ? 1 : 0) : s.accAt[10] ? 1 : 0);
  }
  return sum / (2 * Math.max(1, qs.length));
}

const DIVERSITY_GRID: Diversity[] = [{ cap: 0, within: 0 }, ...[2, 3, 4].flatMap((cap) => [0, 0.5, 0.6, 0.7, 0.8].map((within) => ({ cap, within })))];

function main(): void {
  const data = readResult<{ features: string[]; queries: DumpQuery[] }>(arg('--data') ?? 'ranker-data-golden+nl+devset');
  if (!data) throw new Error('no ranker data: run bench/ranker-data.ts first');
  if (data.features.join() !== FEATURES.join()) throw new Error(`the data's features (${data.features.join()}) are not FEATURES; dump again`);
  const options = { l2: Number(arg('--l2') ?? 0.001), epochs: Number(arg('--epochs') ?? 300), rate: Number(arg('--rate') ?? 2), seed: 7, lambda: arg('--objective') !== 'ranknet' };
  const tune = data.queries.filter((q) => q.split === 'tune' && q.set !== 'golden');
  const lexTune = tune.map(lexicalView);
  const weights = { lexical: trainPairwise(lexTune, options), hybrid: trainPairwise(tune, options) };
  const scorer = (w: readonly number[]) => (c: DumpCandidate) => dot(w, c.f);
  const rules = (c: DumpCandidate): number => Math.log(Math.max(1e-9, c.f[LEX]!));
  // one diversity for both weight sets, picked on the tuning half of the hybrid candidates
  const picked = DIVERSITY_GRID.map((div) => ({ div, value: (objective(lexTune, scorer(weights.lexical), div) + objective(tune, scorer(weights.hybrid), div)) / 2 })).sort((a, b) => b.value - a.value)[0]!;
  const div = picked.div;
  process.stdout.write(`pairs trained on ${tune.length} tuning queries; diversity cap ${div.cap} within ${div.within} (tune objective ${picked.value.toFixed(4)})\n`);
  for (const [name, w] of Object.entries(weights)) process.stdout.write(`${name.padEnd(8)} ${FEATURES.map((f, i) => `${f} ${w[i]!.toFixed(3)}`).join(', ')}\n`);
  const variants: Variant[] = [{ name: 'lexical' }, { name: 'lexical+div' }, { name: 'learned-lexical' }, { name: 'learned-lexical+div' }, { name: 'learned-hybrid', provider: 'builtin' }, { name: 'learned-hybrid+div', provider: 'builtin' }];
  for (const split of ['tune', 'held-out', 'golden'] as const) {
    const rows: Row[] = [];
    for (const q of data.queries.filter((x) => x.split === split)) {
      const lq = lexicalView(q);
      const push = (variant: string, hits: DumpCandidate[]): void => void rows.push({ set: q.set, group: q.group, id: q.id, variant, mode: 'hybrid', score: scoreOf(q, hits) });
      push('lexical', rankOffline(lq, rules, { cap: 0, within: 0 }));
      push('lexical+div', rankOffline(lq, rules, div));
      push('learned-lexical', rankOffline(lq, scorer(weights.lexical), { cap: 0, within: 0 }));
      push('learned-lexical+div', rankOffline(lq, scorer(weights.lexical), div));
      push('learned-hybrid', rankOffline(q, scorer(weights.hybrid), { cap: 0, within: 0 }));
      push('learned-hybrid+div', rankOffline(q, scorer(weights.hybrid), div));
    }
    process.stdout.write(`\n######## ${split}\n${formatTables(rows, variants, { devsetSplit: split })}\n`);
  }
  if (process.argv.includes('--write')) {
    const round = (w: readonly number[]): Record<string, number> => Object.fromEntries(FEATURES.map((f, i) => [f, Math.round(w[i]! * 1e4) / 1e4]));
    const out = {
      version: 1,
      trainedBy: `npx tsx bench/train-ranker.ts --write --l2 ${options.l2} --epochs ${options.epochs} --rate ${options.rate} --objective ${options.lambda ? 'lambdarank' : 'ranknet'}`,
      trainedOn: `${tune.length} tuning queries (NL slice tune repositories, devset tune ids), pairwise logistic`,
      lexical: round(weights.lexical),
      hybrid: round(weights.hybrid),
      diversity: div,
    };
    const file = join(import.meta.dirname, '..', 'models', 'ranker', 'weights.json');
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    process.stdout.write(`wrote ${file}\n`);
  }
}

main();
