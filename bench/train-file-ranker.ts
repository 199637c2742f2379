/**
 * Trains the learned file ranker's weights (src/search/file-rank.ts) on the long queries
 * bench/file-rank-data.ts dumped, and compares it offline with the shipped default's order of the
 * same pools, by leave-one-repository-out cross-validation on the tuning half.
 *
 *   npx tsx bench/train-file-ranker.ts [--data file-rank-data-large+devset-tune] [--l2 0.001] [--epochs 300] [--rate 2]
 *                                      [--temperatures 0.5,1,2] [--large-weight N] [--write]
 *
 * Units are files (a gold file relevance 1, any other file 0); the loss is bench/train-ranker.ts's
 * pairwise logistic weighted by |ΔNDCG@10| (LambdaRank), started from weights that approximate
 * the rule order (best chunk × the model's prior). Two weight sets: `hybrid` (all features) and
 * `lexical` (the model's features zeroed). A chunk list is rebuilt offline as search builds it
 * (each chunk × exp((file score − best) / temperature) × its share of its file's best chunk) and
 * scored as run-devset.ts scores it (file Acc@k over the first 50 chunks, MRR@10, function hit@k,
 * `cfile@5` over 20, distinct files in 10). The temperature is picked on the out-of-fold lists
 * (best mean of function hit@10 and cfile@5). `--write` trains on every tuning query and writes
 * models/ranker/file-weights.json. Never reads the held-out halves.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkListFileHits, scoreQuery, type QueryScore } from '../src/eval/metrics.js';
import { FILE_FEATURES } from '../src/search/file-rank.js';
import { splitOfRepo } from './bench-repos.js';
import type { FileDumpQuery, PoolChunk } from './file-rank-data.js';
import { pairedBootstrap } from './quality-table.js';
import { readResult } from './results.js';
import { trainPairwise } from './train-ranker.js';

const NF = FILE_FEATURES.length;
const PRIOR = new Set(['prior', 'priorRank'].map((f) => FILE_FEATURES.indexOf(f as (typeof FILE_FEATURES)[number])));
/** Starting weights: about the rule order, `best` being 1 + ln(chunk / best chunk) / 4 and the prior a factor of 0.7–1. */
const INIT = FILE_FEATURES.map((f) => (f === 'best' ? 4 : f === 'prior' ? 0.35 : 0));

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const repoOf = (q: FileDumpQuery): string => q.id.slice(0, q.id.indexOf(':'));
const lexicalView = (q: FileDumpQuery): FileDumpQuery => ({ ...q, cands: q.cands.map((c) => ({ ...c, f: c.f.map((v, i) => (PRIOR.has(i) ? 0 : v)) })) });
const dot = (w: readonly number[], f: readonly number[]): number => f.reduce((s, v, i) => s + v * w[i]!, 0);

/** The list search would return: the pool re-ordered by the files' scores (file-rank.ts `rankPoolFiles`). */
export function rankedList(q: FileDumpQuery, w: readonly number[], temperature: number): PoolChunk[] {
  const fileScore = new Map(q.cands.map((c) => [c.path, dot(w, c.f)]));
  const best = Math.max(...fileScore.values());
  const fileBest = new Map<string, number>();
  for (const c of q.pool) fileBest.set(c.path, Math.max(fileBest.get(c.path) ?? -Infinity, c.score));
  const order = [...fileScore].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const rank = new Map(order.map(([p], i) => [p, i]));
  return q.pool
    .map((c) => {
      const share = fileBest.get(c.path)! > 0 ? Math.max(0, c.score) / fileBest.get(c.path)! : 0;
      return { ...c, score: Math.exp(((fileScore.get(c.path) ?? -Infinity) - best) / temperature) * (share > 0 ? share : 1e-9) };
    })
    .sort((a, b) => b.score - a.score || rank.get(a.path)! - rank.get(b.path)! || a.startLine - b.startLine);
}

interface Measured {
  readonly q: FileDumpQuery;
  readonly s: QueryScore;
  readonly cfile5: boolean;
  readonly files10: number;
}

function measure(q: FileDumpQuery, list: readonly PoolChunk[]): Measured {
  const first = list.slice(0, 10).map((h) => h.path);
  return { q, s: scoreQuery(list.slice(0, 50), q.expected), cfile5: chunkListFileHits(list, q.expected)[5] ?? false, files10: new Set(first).size };
}

const b = (x: boolean | undefined): number => (x ? 1 : 0);
const mean = (xs: readonly number[]): number => xs.reduce((a, c) => a + c, 0) / Math.max(1, xs.length);

/** One table row: n, Acc@1/5/10, MRR, fn@1/5/10, cfile@5, files in 10, and Δ Acc@5 / MRR against `ref` with 95% intervals. */
function row(name: string, ms: readonly Measured[], ref?: readonly Measured[]): string {
  const f = (x: number): string => x.toFixed(3);
  const cols = [
    ...[1, 5, 10].map((k) => f(mean(ms.map((m) => b(m.s.accAt[k]))))),
    f(mean(ms.map((m) => m.s.reciprocalRank))),
    ...[1, 5, 10].map((k) => f(mean(ms.filter((m) => m.s.functionHitAt).map((m) => b(m.s.functionHitAt![k]))))),
    f(mean(ms.map((m) => b(m.cfile5)))),
    mean(ms.map((m) => m.files10)).toFixed(2),
  ];
  let delta = '';
  if (ref) {
    const d = (pick: (m: Measured) => number): string => {
      const x = pairedBootstrap(ms.map((m, i) => pick(m) - pick(ref[i]!)));
      return `${x.mean >= 0 ? '+' : ''}${f(x.mean)} [${f(x.lo)}, ${f(x.hi)}]`;
    };
    delta = `  ΔAcc@5 ${d((m) => b(m.s.accAt[5]))}  ΔMRR ${d((m) => m.s.reciprocalRank)}  Δfn@10 ${d((m) => b(m.s.functionHitAt?.[10]))}`;
  }
  return `| ${name.padEnd(26)} | ${String(ms.length).padStart(3)} | ${cols.join(' | ')} |${delta}`;
}

const groups = (qs: readonly FileDumpQuery[]): Array<[string, (q: FileDumpQuery) => boolean]> => [
  ['large issue', (q) => q.group === 'large'],
  ['devset issue', (q) => q.group === 'devset' && q.kind === 'issue'],
  ['devset commit', (q) => q.group === 'devset' && q.kind === 'commit'],
  ['all', () => qs.length > 0],
];

type Options = { l2: number; epochs: number; rate: number; seed: number; lambda: boolean };

/** Out-of-fold weights: each repository's queries scored by weights trained on the other repositories. */
/** The training queries: the large group's `--large-weight` times over (its issue texts are what the hidden measurement is like). */
function weighted(qs: readonly FileDumpQuery[]): FileDumpQuery[] {
  const times = Number(arg('--large-weight') ?? 1);
  return qs.flatMap((q) => (q.group === 'large' ? Array.from({ length: times }, () => q) : [q]));
}

function crossValidated(qs: readonly FileDumpQuery[], options: Options, view: (q: FileDumpQuery) => FileDumpQuery): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const repo of new Set(qs.map(repoOf))) {
    const train = weighted(qs.filter((q) => repoOf(q) !== repo)).map(view);
    out.set(repo, trainPairwise(train, { ...options, init: INIT }));
  }
  return out;
}

function report(title: string, qs: readonly FileDumpQuery[], lists: ReadonlyArray<[string, (q: FileDumpQuery) => PoolChunk[]]>): void {
  process.stdout.write(`\n${title}\n| variant | n | Acc@1 | Acc@5 | Acc@10 | MRR@10 | fn@1 | fn@5 | fn@10 | cfile@5 | files10c |\n`);
  for (const [g, keep] of groups(qs)) {
    const sub = qs.filter(keep);
    if (sub.length === 0) continue;
    process.stdout.write(`-- ${g}\n`);
    const ref = sub.map((q) => measure(q, q.pool));
    process.stdout.write(`${row('default (pool order)', ref)}\n`);
    for (const [name, list] of lists) process.stdout.write(`${row(name, sub.map((q) => measure(q, list(q))), ref)}\n`);
  }
}

function main(): void {
  const names = (arg('--data') ?? 'file-rank-data-large+devset-tune').split(',');
  const qs = names.flatMap((n) => readResult<{ features: string[]; queries: FileDumpQuery[] }>(n)?.queries ?? []).filter((q) => splitOfRepo(repoOf(q)) === 'tune');
  if (qs.length === 0) throw new Error(`no tuning queries in ${names.join(', ')}: run bench/file-rank-data.ts first`);
  const options: Options = { l2: Number(arg('--l2') ?? 0.001), epochs: Number(arg('--epochs') ?? 300), rate: Number(arg('--rate') ?? 2), seed: 7, lambda: arg('--objective') !== 'ranknet' };
  const temps = (arg('--temperatures') ?? '0.5,1,2,4,8').split(',').map(Number);
  const hybrid = crossValidated(qs, options, (q) => q);
  const lexical = crossValidated(qs, options, lexicalView);
  const init = (): number[] => INIT;
  const lists: Array<[string, (q: FileDumpQuery) => PoolChunk[]]> = [['start weights, t 1', (q) => rankedList(q, init(), 1)]];
  for (const t of temps) lists.push([`hybrid CV, t ${t}`, (q) => rankedList(q, hybrid.get(repoOf(q))!, t)]);
  for (const t of temps) lists.push([`lexical CV, t ${t}`, (q) => rankedList(lexicalView(q), lexical.get(repoOf(q))!, t)]);
  report(`tuning half, leave-one-repository-out (${qs.length} long queries, ${new Set(qs.map(repoOf)).size} repositories; ${JSON.stringify(options)})`, qs, lists);
  const pickT = (w: (q: FileDumpQuery) => number[], view: (q: FileDumpQuery) => FileDumpQuery): number =>
    temps.map((t) => ({ t, v: mean(qs.map((q) => { const m = measure(q, rankedList(view(q), w(q), t)); return (b(m.s.functionHitAt?.[10]) + b(m.cfile5)) / 2; })) })).sort((a, c) => c.v - a.v || a.t - c.t)[0]!.t;
  const temperature = pickT((q) => hybrid.get(repoOf(q))!, (q) => q);
  const all = { hybrid: trainPairwise(weighted(qs), { ...options, init: INIT }), lexical: trainPairwise(weighted(qs).map(lexicalView), { ...options, init: INIT }) };
  process.stdout.write(`\ntemperature ${temperature} (out-of-fold mean of fn@10 and cfile@5)\n`);
  for (const [name, w] of Object.entries(all)) process.stdout.write(`${name.padEnd(8)} ${FILE_FEATURES.map((f, i) => `${f} ${w[i]!.toFixed(3)}`).join(', ')}\n`);
  if (!process.argv.includes('--write')) return;
  const round = (w: readonly number[]): Record<string, number> => Object.fromEntries(FILE_FEATURES.map((f, i) => [f, Math.round(w[i]! * 1e4) / 1e4]));
  const out = {
    version: 1,
    trainedBy: `npx tsx bench/train-file-ranker.ts --write --data ${names.join(',')} --l2 ${options.l2} --epochs ${options.epochs} --rate ${options.rate} --temperatures ${temps.join(',')} --large-weight ${arg('--large-weight') ?? 1}`,
    trainedOn: `${qs.length} long queries of the tuning repositories (bench/devset/split.json: the large group's issue texts and the development set's long commit and issue texts), files as units, pairwise logistic weighted by |ΔNDCG@10| (LambdaRank)`,
    temperature,
    lexical: round(all.lexical),
    hybrid: round(all.hybrid),
  };
  const file = join(import.meta.dirname, '..', 'models', 'ranker', 'file-weights.json');
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(`wrote ${file}\n`);
}

if (NF > 0) main();
