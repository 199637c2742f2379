import { EngineError, isEngineError, loadTokenCounter, type Engine } from '../../index.js';
import { askRepository, type TranscriptEntry } from '../../agent/ask.js';
import { createChatClient, type ChatClient } from '../../agent/chat-client.js';
import { completeAtCursor } from '../../agent/complete.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { ensureIndexed } from '../ensure-index.js';
import { parseIntFlag } from '../flags.js';

export interface AskFlags {
  db?: string;
  root?: string;
  current?: string;
  rounds?: string;
  json?: boolean;
  verbose?: boolean;
}

export interface CompleteFlags {
  db?: string;
  root?: string;
  tokens?: string;
  maxTokens?: string;
  rounds?: string;
  stop?: string[];
  json?: boolean;
}

/** The configured chat model's client, or LLM_NOT_CONFIGURED. */
function clientFor(engine: Engine, command: string): { client: ChatClient; llm: NonNullable<Engine['config']['llm']> } {
  const llm = engine.config.llm;
  if (llm === undefined) throw new EngineError('LLM_NOT_CONFIGURED', { command });
  const client = createChatClient(llm, { apiKey: engine.config.llmApiKey() });
  return { client, llm };
}

/** Aborts on the first Ctrl-C (SIGINT) or SIGTERM while a command runs; the second one is the default (exit). */
function cancelOnSignal(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  return { signal: controller.signal, dispose: () => (process.off('SIGINT', abort), process.off('SIGTERM', abort)) };
}

function describeEntry(e: TranscriptEntry): string {
  switch (e.type) {
    case 'retrieve':
      return `retrieve_context ${JSON.stringify(e.arguments)}`;
    case 'model':
      return `round ${e.round}: ${e.toolCalls.length > 0 ? `${e.toolCalls.length} tool call(s)` : 'reply'}`;
    case 'tool':
      return `  ${e.name} ${e.arguments}`;
    case 'invalid_tool_call':
      return `  invalid tool call: ${e.issues.join('; ')}`;
    case 'rejected_answer':
      return `  answer rejected: ${e.reason}`;
  }
}

/**
 * `scry ask QUESTION`: repository Q&A with the model configured under `llm` (see agent/ask.ts).
 * Prints the answer (its citations checked); `--json` prints {answer, citations, rounds, tokens,
 * transcript}, and on LLM_BUDGET_EXHAUSTED the transcript so far with the error.
 */
export async function askCommand(io: CliIO, question: string | undefined, flags: AskFlags): Promise<number> {
  const text = question === undefined || question === '-' ? await io.readStdin() : question;
  if (text.trim() === '') throw new EngineError('QUERY_EMPTY', {});
  const rounds = parseIntFlag(flags.rounds, '--rounds', 50);
  const engine = await openEngine(io, { dir: flags.root, db: flags.db });
  const cancel = cancelOnSignal();
  try {
    const { client, llm } = clientFor(engine, 'scry ask');
    await ensureIndexed(io, engine, flags.json);
    const counter = await loadTokenCounter();
    const result = await askRepository({
      question: text,
      client,
      tools: { engine },
      counter,
      toolCalls: llm.toolCalls,
      maxRounds: rounds ?? llm.maxRounds,
      maxTokens: llm.maxTokens,
      currentFile: flags.current,
      signal: cancel.signal,
      onEntry: flags.verbose && !flags.json ? (e) => io.err(`scry: ${describeEntry(e)}\n`) : undefined,
    });
    if (flags.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    else io.out(`${result.answer}\n`);
    if (!flags.json) io.err(`scry: ${result.rounds} round(s) · ${result.tokens} tokens · ${result.citations.length} citation(s)\n`);
    return 0;
  } catch (err) {
    if (flags.json && isEngineError(err) && Array.isArray(err.data.transcript)) {
      io.out(`${JSON.stringify({ error: { code: err.code, message: err.message }, transcript: err.data.transcript }, null, 2)}\n`);
    }
    throw err;
  } finally {
    cancel.dispose();
    engine.close();
  }
}

/** `FILE:LINE[:COL]` → path, line and column (line and column 1-based). */
export function parseCursor(raw: string): { path: string; line: number; column?: number } {
  const m = /^(.+?):(\d+)(?::(\d+))?$/.exec(raw);
  if (!m) throw new EngineError('INVALID_ARGUMENT', { name: 'FILE:LINE[:COL]', reason: `"${raw}" has no :LINE (e.g. src/app.ts:42 or src/app.ts:42:10)` });
  const line = Number(m[2]);
  const column = m[3] === undefined ? undefined : Number(m[3]);
  if (!Number.isSafeInteger(line) || line < 1) throw new EngineError('INVALID_ARGUMENT', { name: 'LINE', reason: 'must be a positive integer' });
  if (column !== undefined && (!Number.isSafeInteger(column) || column < 1)) throw new EngineError('INVALID_ARGUMENT', { name: 'COL', reason: 'must be a positive integer' });
  return { path: m[1]!, line, ...(column !== undefined ? { column } : {}) };
}

/** Stop sequences from the command line, with `\n` and `\t` escapes (`--stop '\n\n'` is a blank line). */
function stopSequences(raw: readonly string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw.map((s) => s.replace(/\\n/g, '\n').replace(/\\t/g, '\t'));
}

/**
 * `scry complete FILE:LINE[:COL]`: FIM completion with repository context (agent/complete.ts),
 * streamed to stdout as it arrives; `--json` prints {path, line, column, text, finish, rounds}
 * at the end instead. Ctrl-C cancels the request in flight.
 */
export async function completeCommand(io: CliIO, at: string, flags: CompleteFlags): Promise<number> {
  const cursor = parseCursor(at);
  const tokens = parseIntFlag(flags.tokens, '--tokens', 100_000) ?? 4096;
  const maxNewTokens = parseIntFlag(flags.maxTokens, '--max-tokens', 4096);
  const rounds = parseIntFlag(flags.rounds, '--rounds', 2);
  if (rounds !== undefined && rounds < 1) throw new EngineError('INVALID_ARGUMENT', { name: '--rounds', reason: 'must be 1 or 2' });
  const engine = await openEngine(io, { dir: flags.root, db: flags.db });
  const cancel = cancelOnSignal();
  try {
    const { client } = clientFor(engine, 'scry complete');
    await ensureIndexed(io, engine, flags.json);
    const counter = await loadTokenCounter();
    const result = await completeAtCursor({
      cursor,
      client,
      tools: { engine },
      counter,
      maxTokens: tokens,
      rounds: rounds as 1 | 2 | undefined,
      stop: stopSequences(flags.stop),
      maxNewTokens,
      signal: cancel.signal,
      onText: flags.json ? undefined : (t) => io.out(t),
    });
    if (flags.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    else io.out('\n');
    return 0;
  } finally {
    cancel.dispose();
    engine.close();
  }
}
