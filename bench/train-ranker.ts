/**
 * Trains the learned ranker's weights (src/search/learned-rank.ts) and compares them with lexical
 * ranking offline, on the candidates and features bench/ranker-data.ts wrote.
 *
 *   npx tsx bench/train-ranker.ts [--data ranker-data-golden+nl+devset[,ranker-data-nl-tune]] [--write] [--l2 0.01] [--epochs 300]
 *
 * Objective: pairwise logistic: for every query of the tune repositories (bench/devset/split.json,
 * the frozen split by repository; never golden or held-out), pairs of candidates with different
 * relevance (2: overlaps a gold function, 1: in a gold file, 0: neither; a seeded sample of at most
 * 3,000 per query) add log(1 + exp(−(s_better − s_worse))), each pair weighted by |ΔNDCG@10| of
 * swapping the two at the current ranking (LambdaRank; `--objective ranknet`: each query's pairs
 * weigh the same, 400 per query); L2 on the weights; full-batch gradient descent. Two weight sets: `lexical` (lexical
 * candidates only, no vector features) and `hybrid`. The per-file diversity (cap, within) is then
 * picked on the tuning half: among those that cost no function hit@10 there (within 0.005), the best mean of file MRR@10,
 * function hit@10 and gold files among the first 10 chunks. Reports per set and kind,
 * on held-out and golden: lexical (the rule-based order of the same candidates), learned lexical
 * and learned hybrid, with paired bootstrap intervals against lexical (bench/quality-table.ts).
 * `--write` writes models/ranker/weights.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scoreQuery, type QueryScore } from '../src/eval/metrics.js';
import { FEATURES, type Diversity } from '../src/search/learned-rank.js';
import { LEARNED_POOL } from '../src/search/learned-search.js';
import { capPerFile, dedupeOverlaps } from '../src/search/rank.js';
import type { DumpCandidate, DumpQuery } from './ranker-data.js';
import { formatTables, type Row, type Variant } from './quality-table.js';
import { splitOfRepo } from './bench-repos.js';
import { readResult } from './results.js';
import { prng } from './stats.js';

const VECTOR_FEATURES = new Set(FEATURES.flatMap((f, i) => (f.startsWith('cosine') ? [i] : [])));
const LEX_RANK = FEATURES.indexOf('lexicalRank');
const LEX = FEATURES.indexOf('lexical');
const COS_RANK = FEATURES.indexOf('cosineRank');

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
export function trainPairwise(queries: readonly DumpQuery[], options: { l2: number; epochs: number; rate: number; seed: number; lambda: boolean; init?: readonly number[] }): number[] {
  const data = pairsOf(queries, options.lambda ? 3000 : 400, options.seed);
  // the file ranker (train-file-ranker.ts) trains its own features from its own starting weights
  const NF = options.init?.length ?? FEATURES.length;
  const w = options.init ? [...options.init] : new Array<number>(NF).fill(0);
  if (!options.init) w[LEX] = 1;
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

/** Every gold file among the paths of the first 10 chunks (what a reader of a 10-result list sees), and how many distinct files those are. */
function firstTen(q: DumpQuery, hits: readonly DumpCandidate[]): { filesIn10: number; distinct: number } {
  const paths = new Set(hits.slice(0, 10).map((h) => h.path));
  const gold = [...new Set(q.expected.map((g) => g.path))];
  return { filesIn10: (q.anyFile ? gold.some((p) => paths.has(p)) : gold.every((p) => paths.has(p))) ? 1 : 0, distinct: paths.size };
}

/** Mean of file MRR@10, function hit@10 (file Acc@10 without spans) and gold files in the first 10 chunks: what the diversity is picked on. */
function objective(qs: readonly DumpQuery[], score: (c: DumpCandidate) => number, div: Diversity): number {
  let sum = 0;
  for (const q of qs) {
    const hits = rankOffline(q, score, div);
    const s = scoreOf(q, hits);
    sum += s.reciprocalRank + (s.functionHitAt ? (s.functionHitAt[10] ? 1 : 0) : s.accAt[10] ? 1 : 0) + firstTen(q, hits).filesIn10;
  }
  return sum / (3 * Math.max(1, qs.length));
}

const DIVERSITY_GRID: Diversity[] = [{ cap: 0, within: 0 }, ...[2, 3, 4, 5].flatMap((cap) => [0, 0.1, 0.2, 0.3, 0.5, 0.7].map((within) => ({ cap, within })))];

const repoOf = (q: DumpQuery): string => (q.set === 'golden' ? 'golden' : q.id.slice(0, q.id.indexOf(':')));

/** Several dumps in one: a later dump's (set, repository) replaces an earlier one's queries. */
function loadDumps(names: readonly string[]): { queries: DumpQuery[] } {
  let queries: DumpQuery[] = [];
  for (const name of names) {
    const d = readResult<{ features: string[]; queries: DumpQuery[] }>(name);
    if (!d) throw new Error(`no ranker data ${name}: run bench/ranker-data.ts first`);
    if (d.features.join() !== FEATURES.join()) throw new Error(`the features of ${name} (${d.features.join()}) are not FEATURES; dump again`);
    const fresh = new Set(d.queries.map((q) => `${q.set} ${repoOf(q)}`));
    queries = [...queries.filter((q) => !fresh.has(`${q.set} ${repoOf(q)}`)), ...d.queries];
  }
  return { queries };
}

function main(): void {
  const data = loadDumps((arg('--data') ?? 'ranker-data-golden+nl+devset').split(','));
  // the frozen split by repository (bench/devset/split.json), whatever split the dump recorded
  for (const q of data.queries) if (q.set !== 'golden') (q as { split: string }).split = splitOfRepo(q.id.slice(0, q.id.indexOf(':')));
  // the search's pool: lexical top LEARNED_POOL ∪ the vector hits (a dump may hold a deeper lexical list)
  const minRank = 1 / Math.log2(1 + LEARNED_POOL) - 1e-9;
  for (const q of data.queries) (q as unknown as { cands: DumpCandidate[] }).cands = q.cands.filter((c) => c.f[LEX_RANK]! >= minRank || c.f[COS_RANK]! > 0);
  const options = { l2: Number(arg('--l2') ?? 0.001), epochs: Number(arg('--epochs') ?? 300), rate: Number(arg('--rate') ?? 2), seed: 7, lambda: arg('--objective') !== 'ranknet' };
  const tune = data.queries.filter((q) => q.split === 'tune' && q.set !== 'golden');
  const lexTune = tune.map(lexicalView);
  const weights = { lexical: trainPairwise(lexTune, options), hybrid: trainPairwise(tune, options) };
  const scorer = (w: readonly number[]) => (c: DumpCandidate) => dot(w, c.f);
  const rules = (c: DumpCandidate): number => Math.log(Math.max(1e-9, c.f[LEX]!));
  // one diversity for both weight sets, picked on the tuning half of the hybrid candidates
  // a diversity must not cost function hit@10 on the tuning half (the function is what is cited), then it is picked on the objective
  const fn10 = (qs: readonly DumpQuery[], score: (c: DumpCandidate) => number, d: Diversity): number => {
    const withSpans = qs.filter((q) => q.expected.some((g) => g.startLine !== undefined));
    return withSpans.filter((q) => scoreOf(q, rankOffline(q, score, d)).functionHitAt?.[10]).length / Math.max(1, withSpans.length);
  };
  const fnOf = (d: Diversity): number => Math.min(fn10(lexTune, scorer(weights.lexical), d), fn10(tune, scorer(weights.hybrid), d));
  const fnOff = fnOf({ cap: 0, within: 0 });
  const grid = DIVERSITY_GRID.map((div) => ({ div, fn: fnOf(div), value: (objective(lexTune, scorer(weights.lexical), div) + objective(tune, scorer(weights.hybrid), div)) / 2 }));
  if (process.argv.includes('--grid')) for (const g of grid) process.stdout.write(`diversity cap ${g.div.cap} within ${g.div.within}: tune objective ${g.value.toFixed(4)}, fn@10 ${g.fn.toFixed(3)} (off ${fnOff.toFixed(3)})\n`);
  const picked = grid.filter((g) => g.fn >= fnOff - 0.005).sort((a, b) => b.value - a.value)[0]!;
  const div = picked.div;
  process.stdout.write(`pairs trained on ${tune.length} tuning queries; diversity cap ${div.cap} within ${div.within} (tune objective ${picked.value.toFixed(4)})\n`);
  for (const [name, w] of Object.entries(weights)) process.stdout.write(`${name.padEnd(8)} ${FEATURES.map((f, i) => `${f} ${w[i]!.toFixed(3)}`).join(', ')}\n`);
  const variants: Variant[] = [{ name: 'lexical' }, { name: 'lexical+div' }, { name: 'learned-lexical' }, { name: 'learned-lexical+div' }, { name: 'learned-hybrid', provider: 'builtin' }, { name: 'learned-hybrid+div', provider: 'builtin' }];
  for (const split of ['tune', 'held-out', 'golden'] as const) {
    const rows: Row[] = [];
    const seen = new Map<string, { filesIn10: number; distinct: number; n: number }>();
    for (const q of data.queries.filter((x) => x.split === split)) {
      const lq = lexicalView(q);
      const push = (variant: string, hits: DumpCandidate[]): void => {
        rows.push({ set: q.set, group: q.group, id: q.id, variant, mode: 'hybrid', score: scoreOf(q, hits) });
        const key = `${q.set} ${q.group} ${variant}`;
        const t = firstTen(q, hits);
        const acc = seen.get(key) ?? { filesIn10: 0, distinct: 0, n: 0 };
        seen.set(key, { filesIn10: acc.filesIn10 + t.filesIn10, distinct: acc.distinct + t.distinct, n: acc.n + 1 });
      };
      push('lexical', rankOffline(lq, rules, { cap: 0, within: 0 }));
      push('lexical+div', rankOffline(lq, rules, div));
      push('learned-lexical', rankOffline(lq, scorer(weights.lexical), { cap: 0, within: 0 }));
      push('learned-lexical+div', rankOffline(lq, scorer(weights.lexical), div));
      push('learned-hybrid', rankOffline(q, scorer(weights.hybrid), { cap: 0, within: 0 }));
      push('learned-hybrid+div', rankOffline(q, scorer(weights.hybrid), div));
    }
    process.stdout.write(`\n######## ${split}\n${formatTables(rows, variants, { devsetSplit: split })}\n`);
    process.stdout.write(`\n-- ${split}: gold files among the first 10 chunks / distinct files among them\n`);
    for (const [key, v] of [...seen].sort()) process.stdout.write(`${key.padEnd(48)} ${(v.filesIn10 / v.n).toFixed(3)}  ${(v.distinct / v.n).toFixed(2)}\n`);
  }
  if (process.argv.includes('--write')) {
    const round = (w: readonly number[]): Record<string, number> => Object.fromEntries(FEATURES.map((f, i) => [f, Math.round(w[i]! * 1e4) / 1e4]));
    const out = {
      version: 1,
      trainedBy: `npx tsx bench/train-ranker.ts --write --data ${arg('--data') ?? 'ranker-data-golden+nl+devset'} --l2 ${options.l2} --epochs ${options.epochs} --rate ${options.rate} --objective ${options.lambda ? 'lambdarank' : 'ranknet'}`,
      trainedOn: `${tune.length} tuning queries (tune repositories of bench/devset/split.json: devset and NL slice), pairwise logistic${options.lambda ? " weighted by |ΔNDCG@10| (LambdaRank)" : ""}`,
      lexical: round(weights.lexical),
      hybrid: round(weights.hybrid),
      diversity: div,
    };
    const file = join(import.meta.dirname, '..', 'models', 'ranker', 'weights.json');
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    process.stdout.write(`wrote ${file}\n`);
  }
}

// run as a script, not when bench/train-file-ranker.ts imports trainPairwise
if (process.argv[1]?.endsWith('train-ranker.ts')) main();
