/**
 * The readable files of a quality run: results/<id>.txt per query and stats.txt. Both are
 * committed, so a ranking change shows up as a diff (STYLE.md habit 7). Pure text formatting.
 */
import { formatStatsTable, MODES, TOP_K, type FileHit, type Mode, type QualityQuery, type QueryOutcome, type StatsRow } from './metrics.js';

/** What one mode of one query returned, reduced to what the files show. */
export interface ModeRun {
  /** Distinct files, best first, at most TOP_K. */
  readonly files: readonly FileHit[];
  /** Line range of each file's best result, keyed by path. */
  readonly lines: ReadonlyMap<string, string>;
  readonly rank: number | null;
  /** Results returned before collapsing to files. */
  readonly results: number;
  readonly terms: readonly string[];
  readonly dropped: readonly string[];
}

const MODE_TITLE: Record<Mode, string> = {
  files: 'files: true (one result per file)',
  chunks: 'chunk level (distinct files among the top chunks)',
};

const indent = (text: string): string =>
  text
    .trim()
    .split('\n')
    .map((l) => `  ${l}`.trimEnd())
    .join('\n');

/** results/<id>.txt: the query, its gold, and per mode the top files with scores and the gold rank. */
export function formatQueryResult(q: QualityQuery, runs: Readonly<Record<Mode, ModeRun>>): string {
  const out = [`id: ${q.id}`, `kind: ${q.kind}`, 'query:', indent(q.query), `expected: ${q.expected.join(', ')}`, `why: ${q.why}`];
  for (const mode of MODES) {
    const run = runs[mode];
    out.push('', `== ${MODE_TITLE[mode]}: gold rank ${run.rank ?? `not in top ${TOP_K}`} (${run.results} results, ${run.files.length} files)`);
    out.push(`terms: ${run.terms.join(' | ') || '(none)'}`);
    if (run.dropped.length > 0) out.push(`dropped: ${run.dropped.join(' | ')}`);
    run.files.forEach((f, i) => {
      const mark = q.expected.includes(f.path) ? '*' : ' ';
      out.push(`${mark}${String(i + 1).padStart(3)}  ${f.score.toFixed(4).padStart(9)}  ${f.path}:${run.lines.get(f.path) ?? ''}`);
    });
  }
  return `${out.join('\n')}\n`;
}

export interface StatsHeader {
  readonly corpus: readonly string[];
  readonly files: number;
  readonly chunks: number;
}

/** stats.txt: provenance, the metrics table, and every query's gold rank per mode. */
export function formatStatsFile(header: StatsHeader, rows: readonly StatsRow[], outcomes: readonly QueryOutcome[]): string {
  const rank = (r: number | null): string => (r === null ? '-' : String(r));
  const idWidth = Math.max(...outcomes.map((o) => o.query.id.length), 2);
  const perQuery = outcomes.map((o) => `${o.query.id.padEnd(idWidth)}  ${o.query.kind.padEnd(10)}  ${rank(o.ranks.files).padStart(5)}  ${rank(o.ranks.chunks).padStart(6)}`);
  return [
    '# scry retrieval quality. Regenerate: UPDATE_QUALITY=1 npx vitest run test/quality',
    `# corpus: ${header.corpus.join(' ')}`,
    `# indexed: ${header.files} files, ${header.chunks} chunks; ${outcomes.length} queries, top ${TOP_K}`,
    '# recall@k: share of queries whose first expected file is among the top k distinct files',
    '',
    formatStatsTable(rows),
    '',
    `# gold rank per query ('-' = not in the top ${TOP_K})`,
    `${'id'.padEnd(idWidth)}  ${'kind'.padEnd(10)}  files  chunks`,
    ...perQuery,
    '',
  ].join('\n');
}
