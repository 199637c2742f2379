/**
 * The regression guard of the development benchmark (issue 18): the shipped configuration's
 * numbers on the frozen held-out half, per kind, recorded in bench/devset/held-out-default.json
 * (`run-devset.ts --split held-out --variants default --record`), and a later run checked against
 * them (`--check`): a kind whose file Acc@5, MRR@10 or function hit@10 drops by more than
 * max(0.02, 1/n) fails, the tolerance of test/quality's per-kind gates. Ranking is never tuned on
 * this half, so the record stays an honest yardstick. Pure: rows in, records and regressions out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize } from '../src/eval/metrics.js';
import { maxKindDrop } from '../test/quality/metrics.js';
import { KINDS, type DevRow, type QueryKind } from './devset-report.js';

export const GUARD_FILE = join(import.meta.dirname, 'devset', 'held-out-default.json');

export interface KindRecord {
  readonly n: number;
  readonly acc5: number;
  readonly mrr: number;
  /** Over the queries with function gold. */
  readonly fn10: number;
}

export type GuardRecord = Partial<Record<QueryKind, KindRecord>>;

/** Per kind, the held-out numbers of `rows` (one configuration's rows) of `group` (undefined: the development benchmark proper). */
export function guardRecord(rows: readonly DevRow[], group?: string): GuardRecord {
  const out: GuardRecord = {};
  for (const kind of KINDS) {
    const sel = rows.filter((r) => r.split === 'held-out' && r.kind === kind && r.group === group);
    if (sel.length === 0) continue;
    const s = summarize(sel, []);
    out[kind] = { n: s.queries, acc5: s.accAt[5]!, mrr: s.mrr, fn10: s.functionHitAt?.[10] ?? 0 };
  }
  return out;
}

/** Every metric of every recorded kind that dropped by more than its tolerance, as readable lines. */
export function guardRegressions(recorded: GuardRecord, now: GuardRecord): string[] {
  const out: string[] = [];
  for (const kind of KINDS) {
    const was = recorded[kind];
    if (!was) continue;
    const is = now[kind];
    if (!is) {
      out.push(`${kind}: not measured`);
      continue;
    }
    for (const m of ['acc5', 'mrr', 'fn10'] as const) {
      const drop = was[m] - is[m];
      if (drop > maxKindDrop(was.n) + 1e-9) out.push(`${kind} ${m}: ${was[m].toFixed(3)} → ${is[m].toFixed(3)} (-${drop.toFixed(3)})`);
    }
  }
  return out;
}

/** The large-repository group's record (`--sets large --record`), kept apart from the development benchmark's. */
export const LARGE_GUARD_FILE = join(import.meta.dirname, 'largeset', 'held-out-default.json');

export const readGuard = (file: string = GUARD_FILE): GuardRecord => JSON.parse(readFileSync(file, 'utf8')) as GuardRecord;
export const writeGuard = (g: GuardRecord, file: string = GUARD_FILE): void => writeFileSync(file, `${JSON.stringify(g, null, 1)}\n`);
