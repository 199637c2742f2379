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
  /** Summary per ranking mode: `lexical`, and `reranked` when a reranker is configured. */
  readonly modes: Readonly<Record<string, EvalSummary>>;
  readonly queries: readonly EvalQueryResult[];
}

/** Ranking modes an engine offers: `lexical`, plus `reranked` when a reranker is configured. */
export function modesOf(engine: Engine): string[] {
  return engine.config.rerank.provider === 'none' ? ['lexical'] : ['lexical', 'reranked'];
}

/** Runs one query in one mode and scores it. */
export async function evalOne(engine: Engine, q: EvalQuery, mode = 'lexical'): Promise<EvalQueryResult> {
  const started = performance.now();
  const response = await engine.search(q.query, { limit: FETCH, rerank: mode === 'reranked' });
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

/** Scored results of each mode, side by side. */
export type ModeResults = Record<string, EvalQueryResult[]>;

/** Runs one query in every mode of the engine, adding each result to `into`. */
export async function evalModes(engine: Engine, q: EvalQuery, into: ModeResults): Promise<void> {
  for (const mode of modesOf(engine)) (into[mode] ??= []).push(await evalOne(engine, q, mode));
}

/** The report: a summary per mode; the per-query list is the last mode's (the one users get). */
export function report(root: string, byMode: ModeResults): EvalReport {
  const modes: Record<string, EvalSummary> = {};
  for (const [mode, results] of Object.entries(byMode)) modes[mode] = summarize(results, results.map((r) => r.tookMs));
  const names = Object.keys(byMode);
  if (names.length === 0) modes['lexical'] = summarize([], []);
  return { root, modes, queries: names.length > 0 ? byMode[names[names.length - 1]!]! : [] };
}

/** Runs every query against an indexed engine in each mode and scores it; queries run one at a time, so latencies are comparable. */
export async function runEval(engine: Engine, queries: readonly EvalQuery[]): Promise<EvalReport> {
  const byMode: ModeResults = {};
  for (const q of queries) await evalModes(engine, q, byMode);
  return report(engine.root, byMode);
}
