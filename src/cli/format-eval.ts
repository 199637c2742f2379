import type { EvalReport } from '../eval/run-eval.js';
import { CUTOFFS } from '../eval/metrics.js';

const f3 = (x: number): string => x.toFixed(3);

/** The eval report for people: one row per mode, then the queries whose gold missed the top 10. */
export function formatEval(r: EvalReport): string {
  const head = ['mode    ', ...CUTOFFS.map((k) => `Acc@${k}`.padStart(7)), ' MRR@10', ...CUTOFFS.map((k) => `fn@${k}`.padStart(7)), '  p50 ms', '  p90 ms'];
  const out = [`${Object.values(r.modes)[0]?.queries ?? 0} queries over ${r.root}`, head.join('')];
  for (const [mode, s] of Object.entries(r.modes)) {
    const fn = CUTOFFS.map((k) => (s.functionHitAt ? f3(s.functionHitAt[k]!) : '-').padStart(7));
    out.push([mode.padEnd(8), ...CUTOFFS.map((k) => f3(s.accAt[k]!).padStart(7)), f3(s.mrr).padStart(7), ...fn, s.latencyMs.p50.toFixed(1).padStart(8), s.latencyMs.p90.toFixed(1).padStart(8)].join(''));
    if (s.functionHitAt) out.push(`(fn@k over the ${s.functionQueries} queries with line spans; Acc@k: all expected files among the first k distinct files)`);
  }
  const misses = r.queries.filter((q) => !q.accAt[10]);
  if (misses.length > 0) {
    out.push('', `not all expected files in the top 10 (${misses.length}):`);
    for (const q of misses) out.push(`  ${q.id}: "${q.query.slice(0, 70)}" expected ${q.expected.join(', ')}; got ${q.top.join(', ') || 'nothing'}`);
  }
  return `${out.join('\n')}\n`;
}
