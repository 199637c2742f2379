import type { Engine } from '../index.js';
import { distinctFiles, scoreQuery, summarize, type EvalSummary, type QueryScore } from './metrics.js';
import type { EvalQuery } from './queries-file.js';

/** Chunks fetched per query: enough for 10 distinct files and function hit@10. */
const FETCH = 50;
const SHOWN_FILES = 5;

export interface EvalQueryResult extends QueryScore {
  readonly id: string;
  /** The query, cut at 200 characters. */
  readonly query: string;
  readonly expected: readonly string[];
  /** The first distinct result files. */
  readonly top: readonly string[];
  readonly tookMs: number;
}

export interface EvalReport {
  readonly root: string;
  /** Summary per ranking mode; `lexical` until other modes exist. */
  readonly modes: Readonly<Record<string, EvalSummary>>;
  readonly queries: readonly EvalQueryResult[];
}

/** Runs one query and scores it. */
export async function evalOne(engine: Engine, q: EvalQuery): Promise<EvalQueryResult> {
  const started = performance.now();
  const response = await engine.search(q.query, { limit: FETCH });
  const tookMs = Math.round((performance.now() - started) * 100) / 100;
  return {
    id: q.id,
    query: q.query.length > 200 ? `${q.query.slice(0, 199)}…` : q.query,
    expected: [...new Set(q.expected.map((e) => e.path))],
    top: distinctFiles(response.results).slice(0, SHOWN_FILES),
    tookMs,
    ...scoreQuery(response.results, q.expected),
  };
}

/** The report of scored queries. */
export function report(root: string, results: readonly EvalQueryResult[]): EvalReport {
  return { root, modes: { lexical: summarize(results, results.map((r) => r.tookMs)) }, queries: results };
}

/** Runs every query against an indexed engine and scores it; queries run one at a time, so latencies are comparable. */
export async function runEval(engine: Engine, queries: readonly EvalQuery[]): Promise<EvalReport> {
  const results: EvalQueryResult[] = [];
  for (const q of queries) results.push(await evalOne(engine, q));
  return report(engine.root, results);
}
