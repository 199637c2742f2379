import type { Clock } from '../core/logger.js';

/**
 * How much work tree-sitter may spend on one file, counted in its progress reports: the parser
 * calls back about every 100 parse operations and the query cursor about every 100 steps, at
 * the same points for the same grammar and input on any machine. Counting reports rather than
 * milliseconds makes the choice between syntax chunks and the line-window fallback a function
 * of the file alone: the same tree gives the same index on an idle and on a loaded machine.
 * Part of what INDEX_FEATURE_VERSION versions (its digest covers these values).
 */
export interface ParseLimits {
  /** Progress reports while parsing. */
  readonly parseWork: number;
  /** Progress reports while running the language's query over the tree. */
  readonly queryWork: number;
  /** Matches the query may find. */
  readonly queryMatches: number;
}

/**
 * Measured with web-tree-sitter 0.27.1: ordinary code costs 4–13 parse reports per KB and 1–9
 * query reports per KB (asm.js and chained generic-looking expressions up to ~30), one report
 * taking 15–30 µs, error recovery up to ~400 µs. Over the 8,150 JS/TS files of up to 1 MB in this
 * repository's node_modules (60 MB) the most any file needed was 14,428 parse reports, 8,612
 * query reports and 1,734 matches. 40,000 reports is about 1–6 s of work on one core here.
 */
export const PARSE_LIMITS: ParseLimits = { parseWork: 40_000, queryWork: 40_000, queryMatches: 50_000 };

/**
 * The wall-clock guard: only against a true hang (a grammar's scanner looping), never the
 * everyday limit, which is PARSE_LIMITS. A file stopped by it is indexed by line windows with
 * fallback `parse_timeout` and parsed again on the next pass. Config `parseTimeoutMs`.
 */
export const PARSE_TIMEOUT_MS = 30_000;

/** A monotonic clock (performance.now): the guard must not fire or stall when the system clock is set. */
export const monotonicClock: Clock = { now: () => performance.now() };

/** Why a meter stopped the work: its budget was spent, or the wall-clock guard passed. */
export type MeterStop = 'budget' | 'timeout';

/** Counts progress reports against a budget, and watches the wall-clock guard. */
export interface WorkMeter {
  /** The progress callback: true (cancel) once the budget is spent or the guard has passed. */
  readonly tick: () => boolean;
  /** Reports counted so far. */
  readonly used: () => number;
  /** Set once the meter said cancel. */
  readonly stopped: () => MeterStop | undefined;
}

/** A meter for `budget` reports; `deadline` is a time of `clock` after which any work is cancelled. */
export function workMeter(budget: number, clock: Clock, deadline: number): WorkMeter {
  let used = 0;
  let stop: MeterStop | undefined;
  return {
    tick: () => {
      if (stop) return true;
      used++;
      if (used > budget) stop = 'budget';
      else if (clock.now() > deadline) stop = 'timeout';
      return stop !== undefined;
    },
    used: () => used,
    stopped: () => stop,
  };
}
