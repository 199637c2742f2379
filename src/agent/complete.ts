/**
 * `scry complete FILE:LINE[:COL]`: fill-in-the-middle completion at a cursor with repository
 * context, in two retrieval rounds (RepoCoder, seed 004 §8.5): round 1 retrieves for the code
 * around the cursor and asks the model for a draft; round 2 retrieves again for the draft's
 * identifiers (the implementations it means to call) and streams the final completion. Decoding
 * is the `completion` preset (stop at a blank line, 128 tokens), stop sequences are also applied
 * on this side, and the signal cancels whichever request is in flight (CANCELLED).
 */
import { DECODING_PRESETS, EngineError, type DecodingPreset, type Evidence, type TokenCounter } from '../index.js';
import type { ToolContext } from '../tools/index.js';
import type { ChatClient } from './chat-client.js';
import { retrieveEvidence } from './evidence.js';
import { renderFimWithContext } from './fim-context.js';

/** A cursor: 1-based line and column (column 1 is before the first character). */
export interface Cursor {
  readonly path: string;
  readonly line: number;
  /** Default: the end of the line. */
  readonly column?: number | undefined;
}

export interface CompleteOptions {
  readonly cursor: Cursor;
  readonly client: ChatClient;
  readonly tools: Omit<ToolContext, 'writePolicy'>;
  readonly counter: TokenCounter;
  /** Token budget of the prompt. */
  readonly maxTokens: number;
  /** 1: retrieve once; 2 (default): retrieve again for the draft. */
  readonly rounds?: 1 | 2 | undefined;
  /** Replaces the preset's stop sequences. */
  readonly stop?: readonly string[] | undefined;
  /** Replaces the preset's token limit. */
  readonly maxNewTokens?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The final completion's text as it streams. */
  readonly onText?: ((text: string) => void) | undefined;
}

export interface CompleteRound {
  readonly query: string;
  /** Context pieces in the prompt, `path:start-end`. */
  readonly context: readonly string[];
  readonly promptTokens: number;
  /** The model's text of this round (round 1's is the draft). */
  readonly text: string;
}

export interface CompletionResult {
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly text: string;
  readonly finish: 'stop' | 'length';
  readonly rounds: readonly CompleteRound[];
}

/** Lines read before and after the cursor (the prompt budget trims further). */
const LINES_BEFORE = 300;
const LINES_AFTER = 120;
const READ_MAX_BYTES = 200_000;

interface Around {
  readonly language: string;
  readonly prefix: string;
  readonly suffix: string;
  readonly column: number;
}

/** The text around the cursor, from disk, under read_file's rules (root, links, secrets). */
export async function textAround(ctx: Omit<ToolContext, 'writePolicy'>, cursor: Cursor): Promise<Around> {
  const { engine } = ctx;
  const before = await engine.readFile(cursor.path, { startLine: Math.max(1, cursor.line - LINES_BEFORE), endLine: cursor.line, maxBytes: READ_MAX_BYTES });
  if (cursor.line > before.totalLines) throw new EngineError('INVALID_ARGUMENT', { name: 'line', reason: `${cursor.path} has ${before.totalLines} lines, not ${cursor.line}` });
  if (before.truncated) throw new EngineError('TOO_LARGE', { what: `the text before ${cursor.path}:${cursor.line}`, size: `over ${READ_MAX_BYTES}`, unit: 'bytes', limit: READ_MAX_BYTES });
  const lines = before.text.replace(/\n$/, '').split('\n');
  const current = lines.at(-1) ?? '';
  const column = cursor.column ?? current.length + 1;
  if (!Number.isSafeInteger(column) || column < 1 || column > current.length + 1) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'column', reason: `line ${cursor.line} has ${current.length} characters; the column must be from 1 to ${current.length + 1}` });
  }
  const after = cursor.line < before.totalLines ? await engine.readFile(cursor.path, { startLine: cursor.line + 1, endLine: cursor.line + LINES_AFTER, maxBytes: READ_MAX_BYTES }) : undefined;
  const prefix = [...lines.slice(0, -1), current.slice(0, column - 1)].join('\n');
  const suffix = current.slice(column - 1) + (after ? `\n${after.text}` : '');
  return { language: before.language, prefix, suffix, column };
}

/** Identifiers of a text (3+ characters), last first, without repeats: the words of a retrieval query. */
export function identifiersOf(text: string, max = 24): string[] {
  const words = text.match(/[A-Za-z_$][A-Za-z0-9_$]{2,}/g) ?? [];
  const out: string[] = [];
  for (const w of words.reverse()) {
    if (!out.includes(w)) out.push(w);
    if (out.length >= max) break;
  }
  return out;
}

/** Evidence from `b` not overlapping anything in `a`, appended to `a`. */
function mergeEvidence(a: readonly Evidence[], b: readonly Evidence[]): Evidence[] {
  const out = [...a];
  for (const e of b) if (!out.some((o) => o.path === e.path && o.startLine <= e.endLine && e.startLine <= o.endLine)) out.push(e);
  return out;
}

export async function completeAtCursor(opts: CompleteOptions): Promise<CompletionResult> {
  const ctx: ToolContext = { ...opts.tools, writePolicy: 'read-only', signal: opts.signal };
  const around = await textAround(ctx, opts.cursor);
  const preset: DecodingPreset = {
    ...DECODING_PRESETS.completion,
    ...(opts.stop ? { stop: opts.stop } : {}),
    ...(opts.maxNewTokens !== undefined ? { max_tokens: opts.maxNewTokens } : {}),
  };
  const near = `${around.prefix.split('\n').slice(-12).join('\n')}\n${around.suffix.split('\n').slice(0, 4).join('\n')}`;
  const rounds: CompleteRound[] = [];
  const notHere = (e: Evidence): boolean => e.path !== opts.cursor.path;
  let evidence: Evidence[] = [];
  const total = opts.rounds ?? 2;
  for (let round = 1; round <= total; round++) {
    const words = round === 1 ? identifiersOf(near) : identifiersOf(`${rounds[0]!.text}\n${near}`);
    const query = words.length > 0 ? words.join(' ') : opts.cursor.path;
    const draft = round === 1 ? undefined : rounds[0]!.text;
    const found = await retrieveEvidence({ query, task: 'complete', draft, current: { path: opts.cursor.path, line: opts.cursor.line }, tokens: 2000, maxChunks: 6 }, ctx);
    // the draft's round puts its own finds first: they are what the draft means to use
    evidence = round === 1 ? found.evidence.filter(notHere) : mergeEvidence(found.evidence.filter(notHere), evidence);
    const prompt = renderFimWithContext({ path: opts.cursor.path, language: around.language, prefix: around.prefix, suffix: around.suffix, evidence, counter: opts.counter, maxTokens: opts.maxTokens });
    const last = round === total;
    const out = await opts.client.complete({ prompt: prompt.prompt, preset, signal: opts.signal, onText: last ? opts.onText : undefined });
    rounds.push({ query, context: prompt.context, promptTokens: prompt.tokens, text: out.text });
    if (last) return { path: opts.cursor.path, line: opts.cursor.line, column: around.column, text: out.text, finish: out.finish, rounds };
  }
  throw new EngineError('INVALID_ARGUMENT', { name: 'rounds', reason: 'must be 1 or 2' });
}
