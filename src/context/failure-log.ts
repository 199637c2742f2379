/**
 * Failure retrieval, step 1 (seed 002 "Pass 3: Failure retrieval"): what test runners, compilers,
 * type checkers, linters and crashing programs print, parsed into located items. One pass over the
 * lines; each line is tried against the rules of failure-rules.ts. Lines are grouped in blocks (one
 * failing test, one traceback, one exception chain): an item without a message of its own takes its
 * block's first message line. Untrusted input: never throws, bounded in input and output.
 */
import type { FailureItem } from './failure-item.js';
import { FAILURE_RULES, type ParseState } from './failure-rules.js';

export type { FailureItem, FailureKind, FailureTool } from './failure-item.js';

/** The tail of a longer log is parsed (failures and summaries come last). */
export const MAX_LOG_CHARS = 1_000_000;
/** Longer lines are cut (a minified bundle on one line must not cost a regex pass each). */
export const MAX_LINE_CHARS = 2_000;
/** Items returned at most, in log order. */
export const MAX_FAILURE_ITEMS = 200;
/** Messages are cut to this many characters. */
const MAX_MESSAGE_CHARS = 300;

// eslint-disable-next-line no-control-regex
const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g;

function finishBlock(state: ParseState): void {
  const block = state.block;
  if (block.test !== undefined && !block.testEmitted && block.start < state.items.length) {
    // no frame of the test was printed: the test still counts, found later by its name
    const first = state.items[block.start]!;
    state.items.push({ file: block.test.file ?? first.file, line: 0, symbol: block.test.name, message: '', kind: 'test', tool: block.test.tool });
  }
  const message = block.message.slice(0, MAX_MESSAGE_CHARS);
  for (let i = block.start; i < state.items.length; i++) {
    const item = state.items[i]!;
    if (item.message === '' && message !== '') state.items[i] = { ...item, message };
  }
  state.block = { start: state.items.length, message: '', frames: 0, testEmitted: false };
  state.pending = [];
}

function dedupe(items: readonly FailureItem[]): FailureItem[] {
  const seen = new Set<string>();
  const out: FailureItem[] = [];
  for (const it of items) {
    const key = `${it.kind}\0${it.file}\0${it.line}\0${it.column ?? ''}\0${it.symbol ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(it);
    if (out.length >= MAX_FAILURE_ITEMS) break;
  }
  return out;
}

/**
 * The located items of a tool's output, in log order, without repeats: the failing tests, the
 * frames of their stack traces, panics, and compiler, type-checker and linter diagnostics. Paths
 * are as printed (see `mapFailures` to place them in the repository). Never throws.
 */
export function parseFailure(log: string): FailureItem[] {
  if (typeof log !== 'string' || log === '') return [];
  const text = log.length > MAX_LOG_CHARS ? log.slice(log.length - MAX_LOG_CHARS) : log;
  const state: ParseState = { items: [], block: { start: 0, message: '', frames: 0, testEmitted: false }, pending: [], finishBlock: () => finishBlock(state) };
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.replace(ANSI_RE, '').slice(0, MAX_LINE_CHARS).replace(/\s+$/, '');
    for (const rule of FAILURE_RULES) if (rule(line, state)) break;
    if (state.items.length > MAX_FAILURE_ITEMS * 4) break;
    state.prev = line;
  }
  finishBlock(state);
  return dedupe(state.items);
}
