/**
 * The report of the development benchmark (bench/run-devset.ts): per half (tune, held-out) and per
 * kind of query (commit messages, issue-like long texts, doc-comment queries), file Acc@1/5/10,
 * MRR@10 and function hit@1/5/10 for each configuration, then each configuration against a
 * reference configuration of the same run with paired bootstrap 95% intervals (queries resampled,
 * bench/quality-table.ts) on Acc@5, MRR@10 and function hit@10. `file@10c` is the share of queries
 * whose gold files are all among the paths of the first 10 results and `files10c` the distinct
 * files among them (a per-file cap moves neither Acc@k nor MRR, but these). `cite@10`: one of the
 * first 10 results overlaps a gold function with at least half of its lines (function hit@10 also
 * counts a large chunk that merely contains it); `lines10`: mean lines of those 10 results, what a
 * reader pays. `cfile@5`/`cfile@10`: all gold files among the first 5 / 10 distinct files in the
 * order of the first 20 results (src/eval/metrics.ts chunkListFileHits), the list as an agent reads
 * it; its paired interval is reported too. Pure: rows in, text out.
 */
import { CHUNK_LIST_CUTOFFS, CUTOFFS, summarize, type QueryScore } from '../src/eval/metrics.js';
import type { Split } from './bench-repos.js';
import { pairedBootstrap } from './quality-table.js';

export type QueryKind = 'commit' | 'issue' | 'doc';
export const KINDS: readonly QueryKind[] = ['commit', 'issue', 'doc'];
export const KIND_TITLE: Record<QueryKind, string> = {
  commit: 'commit messages → changed functions',
  issue: 'issue-like long texts → fixed functions',
  doc: 'doc-comment sentences → their function',
};

export interface DevRow extends QueryScore {
  readonly id: string;
  readonly repo: string;
  readonly split: Split;
  readonly kind: QueryKind;
  readonly tookMs: number;
  /** Distinct files among the first 10 results. */
  readonly distinctIn10?: number | undefined;
  /** Every gold file among the paths of the first 10 results (what a reader of a 10-result list sees). */
  readonly filesIn10?: boolean | undefined;
  /** Mean lines of the first 10 results (what a reader pays for a list). */
  readonly linesIn10?: number | undefined;
  /** One of the first 10 results overlaps a gold span with at least half of its own lines (it cites the function, not a group around it). */
  readonly citesIn10?: boolean | undefined;
  /** Per cut-off of CHUNK_LIST_CUTOFFS: every gold file among the first k distinct files of the first 20 results (`cfile@k`). */
  readonly chunkFilesAt?: Record<number, boolean> | undefined;
  /** The query's kind as search classifies it (src/search/query-kind.ts: identifier, path, long, natural), which `search.ranking.byKind` keys on. */
  readonly queryKind?: string | undefined;
  /** The query names a gold file (namesGoldFile): issue-like texts are also reported without these. */
  readonly namesGold?: boolean | undefined;
  /** Distinct gold files: issue-like texts are also reported for those with one (Acc@k wants every gold file, and most fixes change one). */
  readonly goldFiles?: number | undefined;
  /** Why the engine searched without the model although it should have used it (`meta.semantic` of a `lexical only:` answer: no vectors, vectors of another model, the model failed to load); undefined when it did not fall back. */
  readonly lexicalOnly?: string | undefined;
  /** A group reported on its own (`large`: the large-repository group, bench/bench-repos.ts LARGE_REPOS); undefined for the development benchmark proper. */
  readonly group?: string | undefined;
}

export const GROUP_TITLE: Record<string, string> = { large: 'LARGE REPOSITORIES' };

const f3 = (x: number): string => x.toFixed(3);
const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

type Metric = readonly [string, (s: DevRow) => number | undefined];
const DELTA_METRICS: readonly Metric[] = [
  ['Acc@5', (s) => (s.accAt[5] ? 1 : 0)],
  ['cfile@5', (s) => (s.chunkFilesAt ? (s.chunkFilesAt[5] ? 1 : 0) : undefined)],
  ['MRR', (s) => s.reciprocalRank],
  ['fn@10', (s) => (s.functionHitAt ? (s.functionHitAt[10] ? 1 : 0) : undefined)],
];

/** `variant − reference` per query (paired by repository and id), as mean [95% CI]; `better`/`WORSE` when the interval excludes 0. */
export function pairedDelta(rows: readonly DevRow[], ref: readonly DevRow[], pick: Metric[1]): string {
  const base = new Map(ref.map((r) => [`${r.repo}#${r.id}`, r]));
  const diffs: number[] = [];
  for (const r of rows) {
    const b = base.get(`${r.repo}#${r.id}`);
    const x = pick(r);
    const y = b && pick(b);
    if (x !== undefined && y !== undefined) diffs.push(x - y);
  }
  return formatPaired(diffs);
}

/** Paired differences as `mean [95% CI]`, marked `better`/`WORSE` when the interval excludes 0. */
export function formatPaired(diffs: readonly number[]): string {
  const d = pairedBootstrap(diffs);
  const mark = d.lo > 0 ? ' better' : d.hi < 0 ? ' WORSE' : '';
  return `${signed(d.mean)} [${signed(d.lo)},${signed(d.hi)}]${mark}`;
}

function metricsLine(name: string, sel: readonly DevRow[]): string {
  const s = summarize(sel, sel.map((r) => r.tookMs));
  const fn = [1, 5, 10].map((k) => (s.functionHitAt ? f3(s.functionHitAt[k]!) : '-').padStart(8)).join('');
  const distinct = mean(sel.map((r) => r.distinctIn10 ?? 0)).toFixed(2);
  const filesIn10 = f3(mean(sel.map((r) => (r.filesIn10 ? 1 : 0))));
  const fnRows = sel.filter((r) => r.functionHitAt);
  const cites = fnRows.length > 0 ? f3(mean(fnRows.map((r) => (r.citesIn10 ? 1 : 0)))) : '-';
  const lines = mean(sel.map((r) => r.linesIn10 ?? 0)).toFixed(1);
  const cfile = CHUNK_LIST_CUTOFFS.map((k) => f3(mean(sel.map((r) => (r.chunkFilesAt?.[k] ? 1 : 0)))).padStart(9)).join('');
  return `${name.padEnd(24)}${String(s.queries).padStart(5)}${CUTOFFS.map((k) => f3(s.accAt[k]!).padStart(8)).join('')}${f3(s.mrr).padStart(8)}${cfile}${String(s.functionQueries).padStart(6)}${fn}${cites.padStart(8)}${filesIn10.padStart(9)}${distinct.padStart(9)}${lines.padStart(8)}${s.latencyMs.p50.toFixed(1).padStart(8)}`;
}

/** One table: every variant on the rows `pick` selects, then the deltas against `ref`. */
export function kindTable(title: string, byVariant: ReadonlyMap<string, readonly DevRow[]>, pick: (r: DevRow) => boolean, ref: string | undefined): string {
  const head = `${'variant'.padEnd(24)}${'n'.padStart(5)}${CUTOFFS.map((k) => `Acc@${k}`.padStart(8)).join('')}${'MRR@10'.padStart(8)}${CHUNK_LIST_CUTOFFS.map((k) => `cfile@${k}`.padStart(9)).join('')}${'n(fn)'.padStart(6)}${['fn@1', 'fn@5', 'fn@10', 'cite@10'].map((x) => x.padStart(8)).join('')}${'file@10c'.padStart(9)}${'files10c'.padStart(9)}${'lines10'.padStart(8)}${'p50ms'.padStart(8)}`;
  const out = [title, head];
  for (const [name, rows] of byVariant) out.push(metricsLine(name, rows.filter(pick)));
  const refRows = ref !== undefined ? byVariant.get(ref)?.filter(pick) : undefined;
  if (refRows && refRows.length > 0 && byVariant.size > 1) {
    out.push(`  paired vs ${ref} (mean [95% bootstrap CI]):`);
    for (const [name, rows] of byVariant) {
      if (name === ref) continue;
      const sel = rows.filter(pick);
      out.push(`  ${name.padEnd(22)}${DELTA_METRICS.map(([m, f]) => `${m} ${pairedDelta(sel, refRows, f)}`.padEnd(38)).join('')}`);
    }
  }
  return out.join('\n');
}

/** Every table: per group (the development benchmark proper first, then each group apart), per half asked for, per kind present. */
export function formatReport(byVariant: ReadonlyMap<string, readonly DevRow[]>, splits: readonly Split[], ref: string | undefined): string {
  const all = [...byVariant.values()][0] ?? [];
  const parts: string[] = [];
  // '' (the development benchmark proper) sorts first
  const groups = [...new Set(all.map((r) => r.group ?? ''))].sort();
  for (const group of groups) for (const split of splits) parts.push(...splitTables(byVariant, all, group || undefined, split, ref));
  return parts.join('\n');
}

/**
 * Every table by the query's kind as search classifies it (`--by-query-kind`): per group, per half,
 * per `queryKind` over all three kinds of benchmark query, the view a per-kind setting
 * (`search.ranking.byKind`) is chosen from.
 */
export function formatQueryKindReport(byVariant: ReadonlyMap<string, readonly DevRow[]>, splits: readonly Split[], ref: string | undefined): string {
  const all = [...byVariant.values()][0] ?? [];
  const parts: string[] = [];
  for (const group of [...new Set(all.map((r) => r.group ?? ''))].sort()) {
    const prefix = group === '' ? '' : `${GROUP_TITLE[group] ?? group} `;
    for (const split of splits) {
      for (const qk of ['identifier', 'path', 'long', 'natural']) {
        const pick = (r: DevRow): boolean => (r.group ?? '') === group && r.split === split && r.queryKind === qk;
        if (!all.some(pick)) continue;
        const mix = KINDS.map((k) => `${k} ${all.filter((r) => pick(r) && r.kind === k).length}`).join(', ');
        parts.push(kindTable(`\n== ${prefix}${split}: ${qk} queries (${mix})`, byVariant, pick, ref));
      }
    }
  }
  return parts.join('\n');
}

function splitTables(byVariant: ReadonlyMap<string, readonly DevRow[]>, all: readonly DevRow[], group: string | undefined, split: Split, ref: string | undefined): string[] {
  const parts: string[] = [];
  const prefix = group === undefined ? '' : `${GROUP_TITLE[group] ?? group} `;
  for (const kind of KINDS) {
    const pick = (r: DevRow): boolean => r.group === group && r.split === split && r.kind === kind;
    if (!all.some(pick)) continue;
    const repos = new Set(all.filter(pick).map((r) => r.repo)).size;
    parts.push(kindTable(`\n== ${prefix}${split}: ${KIND_TITLE[kind]} (${repos} repositories)`, byVariant, pick, ref));
    const unnamed = (r: DevRow): boolean => pick(r) && r.namesGold === false;
    if (kind === 'issue' && all.some(unnamed)) parts.push(kindTable(`-- ${prefix}${split}: issue-like texts that name no gold file (closer to a real report)`, byVariant, unnamed, ref));
    const single = (r: DevRow): boolean => pick(r) && r.goldFiles === 1;
    if (kind === 'issue' && all.some(single)) parts.push(kindTable(`-- ${prefix}${split}: issue-like texts whose fix changed one file (Acc@k then asks for that file only)`, byVariant, single, ref));
  }
  return parts;
}
