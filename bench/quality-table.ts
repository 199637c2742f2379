/**
 * Tables of bench/model-quality.ts: per set and query group, each variant's file Acc@1/5/10,
 * MRR@10 and function hit@5/10, and its paired difference from `lexical` with a bootstrap interval.
 */
import { CUTOFFS, summarize, type QueryScore } from '../src/eval/metrics.js';
import { percentile, prng } from './stats.js';

export interface Variant {
  readonly name: string;
  readonly provider?: string | undefined;
  readonly fusion?: Readonly<Record<string, unknown>> | undefined;
  /** `search.ranking` overrides (e.g. `{ learned: true }`). */
  readonly ranking?: Readonly<Record<string, unknown>> | undefined;
}

export interface Row {
  readonly set: string;
  readonly group: string;
  readonly id: string;
  readonly variant: string;
  /** The mode the search ran in (`hybrid` unless the vectors were missing). */
  readonly mode: string;
  readonly embedMs?: number | undefined;
  readonly score: QueryScore;
}

const RESAMPLES = 2000;

/** Mean of `diffs` and its 95% bootstrap interval (queries resampled with replacement, seeded). */
export function pairedBootstrap(diffs: readonly number[], seed = 17): { mean: number; lo: number; hi: number } {
  const n = diffs.length;
  if (n === 0) return { mean: 0, lo: 0, hi: 0 };
  const mean = diffs.reduce((a, b) => a + b, 0) / n;
  const rand = prng(seed);
  const means: number[] = [];
  for (let b = 0; b < RESAMPLES; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += diffs[Math.floor(rand() * n)]!;
    means.push(s / n);
  }
  return { mean, lo: percentile(means, 2.5), hi: percentile(means, 97.5) };
}

const f3 = (x: number): string => x.toFixed(3);
const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

function delta(rows: readonly Row[], base: ReadonlyMap<string, Row>, pick: (s: QueryScore) => number): string {
  const diffs = rows.filter((r) => base.has(r.id)).map((r) => pick(r.score) - pick(base.get(r.id)!.score));
  const d = pairedBootstrap(diffs);
  const mark = d.lo > 0 ? ' better' : d.hi < 0 ? ' WORSE' : '';
  return `${signed(d.mean)} [${signed(d.lo)},${signed(d.hi)}]${mark}`;
}

function table(title: string, rows: readonly Row[], variants: readonly Variant[]): string {
  // with function spans the second difference is function hit@10, else file Acc@10
  const spans = rows.some((r) => r.score.functionHitAt !== null);
  const fnHead = spans ? 'Δfn@10' : 'ΔAcc@10';
  const second = (x: QueryScore): number => (spans ? (x.functionHitAt?.[10] ? 1 : 0) : x.accAt[10] ? 1 : 0);
  const head = `${'variant'.padEnd(28)}${'n'.padStart(5)}${CUTOFFS.map((k) => `Acc@${k}`.padStart(8)).join('')}${'MRR'.padStart(8)}${'fn@1'.padStart(8)}${'fn@5'.padStart(8)}${'fn@10'.padStart(8)}  ${'ΔMRR vs lexical [95% CI]'.padEnd(34)}${fnHead} vs lexical [95% CI]`;
  const out = [title, head];
  const base = new Map(rows.filter((r) => r.variant === 'lexical').map((r) => [r.id, r]));
  for (const v of variants) {
    const sel = rows.filter((r) => r.variant === v.name);
    if (sel.length === 0) continue;
    const s = summarize(sel.map((r) => r.score), []);
    const notHybrid = v.provider ? sel.filter((r) => r.mode !== 'hybrid').length : 0;
    const fn = [1, 5, 10].map((k) => (s.functionHitAt ? f3(s.functionHitAt[k]!) : '-').padStart(8)).join('');
    const deltas = v.name === 'lexical' ? '' : `  ${delta(sel, base, (x) => x.reciprocalRank).padEnd(34)}${delta(sel, base, second)}`;
    out.push(`${v.name.padEnd(28)}${String(s.queries).padStart(5)}${CUTOFFS.map((k) => f3(s.accAt[k]!).padStart(8)).join('')}${f3(s.mrr).padStart(8)}${fn}${deltas}${notHybrid > 0 ? `  (${notHybrid} not hybrid)` : ''}`);
  }
  return out.join('\n');
}

/** Every set overall and per group (query kind, language, long/short). */
export function formatTables(rows: readonly Row[], variants: readonly Variant[], options: { devsetSplit: string }): string {
  const parts: string[] = [];
  for (const set of [...new Set(rows.map((r) => r.set))]) {
    const inSet = rows.filter((r) => r.set === set);
    const label = set === 'devset' ? `devset (${options.devsetSplit})` : set;
    parts.push(table(`\n== ${label}: all`, inSet, variants));
    for (const g of [...new Set(inSet.map((r) => r.group))].sort()) parts.push(table(`-- ${label}: ${g}`, inSet.filter((r) => r.group === g), variants));
  }
  const embed = rows.filter((r) => r.embedMs !== undefined).map((r) => r.embedMs!);
  // an engine's first hybrid search also loads the model: on the devset (about one query per commit engine) this is mostly load time
  if (embed.length > 0) parts.push(`\nmeta.embedMs of hybrid searches (includes the model load of each engine's first search): p50 ${percentile(embed, 50).toFixed(2)} ms, p95 ${percentile(embed, 95).toFixed(2)} ms over ${embed.length}`);
  return parts.join('\n');
}
