/**
 * Two runs of bench/run-devset.ts compared query by query (issue 18, the model lever): a reference
 * run and a candidate run (e.g. model v4 on its caches, a candidate model on its re-embedded
 * caches, bench/model-candidate.ts), each saved from bench/results/devset.json. Per group, half
 * and kind: file Acc@5, MRR@10 and function hit@10 of each run and the candidate's paired
 * difference with a 95% bootstrap interval (queries resampled, bench/quality-table.ts), then the
 * full tables of bench/devset-report.ts with both runs as variants. Queries are paired by
 * repository and id; a query in only one run is counted and left out.
 *
 *   npx tsx bench/compare-runs.ts REFERENCE.json CANDIDATE.json [--variant default] [--labels v4,v5] [--full]
 */
import { readFileSync } from 'node:fs';
import { formatPaired, formatReport, GROUP_TITLE, KINDS, type DevRow } from './devset-report.js';
import type { Split } from './bench-repos.js';

interface SavedRun {
  readonly rows: Record<string, DevRow[]>;
}

type Pick = (r: DevRow) => number | undefined;

const METRICS: ReadonlyArray<readonly [string, Pick]> = [
  ['Acc@5', (r) => (r.accAt[5] ? 1 : 0)],
  ['MRR@10', (r) => r.reciprocalRank],
  ['fn@10', (r) => (r.functionHitAt ? (r.functionHitAt[10] ? 1 : 0) : undefined)],
];

const key = (r: DevRow): string => `${r.group ?? ''}|${r.repo}#${r.id}`;

/** The rows of `variant` in a saved run; throws naming the variants it has. */
export function rowsOf(run: SavedRun, variant: string, file: string): DevRow[] {
  const rows = run.rows[variant];
  if (!rows) throw new Error(`${file} has no variant ${variant}; it has ${Object.keys(run.rows).join(', ')}`);
  return rows;
}

/** The queries both runs answered, each run's rows in the same order, and how many each had alone. */
export function pairRuns(ref: readonly DevRow[], cand: readonly DevRow[]): { ref: DevRow[]; cand: DevRow[]; onlyRef: number; onlyCand: number } {
  const byKey = new Map(cand.map((r) => [key(r), r]));
  const refKeys = new Set(ref.map(key));
  const both = ref.filter((r) => byKey.has(key(r)));
  return { ref: both, cand: both.map((r) => byKey.get(key(r))!), onlyRef: ref.length - both.length, onlyCand: cand.filter((r) => !refKeys.has(key(r))).length };
}

const f3 = (x: number): string => x.toFixed(3);

/** One metric over paired rows: reference mean → candidate mean, difference [95% CI], and a mark when the interval excludes 0. */
export function pairedCell(ref: readonly DevRow[], cand: readonly DevRow[], pick: Pick): string {
  const diffs: number[] = [];
  let a = 0;
  let b = 0;
  ref.forEach((r, i) => {
    const x = pick(r);
    const y = pick(cand[i]!);
    if (x === undefined || y === undefined) return;
    diffs.push(y - x);
    a += x;
    b += y;
  });
  if (diffs.length === 0) return '-';
  return `${f3(a / diffs.length)}→${f3(b / diffs.length)} ${formatPaired(diffs)}`;
}

/** The compact table: one line per group, half and kind present. */
export function formatPairedSummary(ref: readonly DevRow[], cand: readonly DevRow[], labels: readonly [string, string]): string {
  const out = [`paired: ${labels[1]} − ${labels[0]} (reference→candidate, difference [95% bootstrap CI])`, `${'set / half / kind'.padEnd(30)}${'n'.padStart(5)}  ${METRICS.map(([m]) => m.padEnd(44)).join('')}`];
  const groups = [...new Set(ref.map((r) => r.group ?? ''))].sort();
  for (const group of groups) {
    for (const split of ['tune', 'held-out'] as Split[]) {
      for (const kind of KINDS) {
        const idx = ref.flatMap((r, i) => ((r.group ?? '') === group && r.split === split && r.kind === kind ? [i] : []));
        if (idx.length === 0) continue;
        const a = idx.map((i) => ref[i]!);
        const b = idx.map((i) => cand[i]!);
        const name = `${group ? (GROUP_TITLE[group] ?? group).toLowerCase() : 'devset'} ${split} ${kind}`;
        out.push(`${name.padEnd(30)}${String(idx.length).padStart(5)}  ${METRICS.map(([, p]) => pairedCell(a, b, p).padEnd(44)).join('')}`);
      }
    }
  }
  return out.join('\n');
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function main(): void {
  const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !['--variant', '--labels'].includes(all[i - 1] ?? ''));
  if (files.length !== 2) throw new Error('usage: compare-runs.ts REFERENCE.json CANDIDATE.json [--variant default] [--labels ref,cand] [--full]');
  const variant = arg('--variant') ?? 'default';
  const labels = (arg('--labels')?.split(',') ?? ['reference', 'candidate']) as [string, string];
  const [refRows, candRows] = files.map((f) => rowsOf(JSON.parse(readFileSync(f, 'utf8')) as SavedRun, variant, f)) as [DevRow[], DevRow[]];
  const p = pairRuns(refRows, candRows);
  process.stdout.write(`${p.ref.length} queries in both runs; ${p.onlyRef} only in ${labels[0]}, ${p.onlyCand} only in ${labels[1]}\n`);
  for (const [label, rows] of [[labels[0], refRows], [labels[1], candRows]] as const) {
    const unused = rows.filter((r) => r.lexicalOnly !== undefined).length;
    if (unused > 0) process.stdout.write(`WARNING: ${label}: ${unused} searches answered without the model (${rows.find((r) => r.lexicalOnly)!.lexicalOnly})\n`);
  }
  process.stdout.write(`${formatPairedSummary(p.ref, p.cand, labels)}\n`);
  if (process.argv.includes('--full')) {
    const splits = [...new Set(p.ref.map((r) => r.split))].sort().reverse() as Split[];
    process.stdout.write(`${formatReport(new Map([[labels[0], p.ref], [labels[1], p.cand]]), splits, labels[0])}\n`);
  }
}

if (process.argv[1] === import.meta.filename) main();
