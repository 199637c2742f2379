/**
 * `scry ask`: repository Q&A with the configured chat model, retrieval first (seed 004 §12, §18.5).
 * Round 0 retrieves evidence for the question (`retrieve_context`, task `qa`); the repo Q&A prompt
 * shows it; then each round is one model turn that either calls read-only tools (natively, or
 * through the JSON `tool_call` reply protocol) or answers. An answer is accepted only when it
 * cites `path:start-end` and every citation points into something the model was shown; otherwise
 * the model is told so and asked to retrieve more. The run stops at `maxRounds` turns or when the
 * next turn would pass the token budget, with LLM_BUDGET_EXHAUSTED (the transcript rides in the
 * error's data). Bad model output never throws anything but a coded EngineError.
 */
import { DECODING_PRESETS, EngineError, renderRepoQaPrompt, renderSystemPrompt, type TokenCounter } from '../index.js';
import { openAiToolDefinitions, parseAssistantOutput, renderToolCallError, renderToolResults, runToolCalls, type CanonicalToolCall, type ToolCallResult, type ToolContext } from '../tools/index.js';
import type { ChatClient } from './chat-client.js';
import type { ChatMessage } from './chat-wire.js';
import { citationProblem, parseCitations, spansIn, type LineSpan } from './citations.js';
import { retrieveEvidence } from './evidence.js';

/** One step of a run, in order; `--json` prints them all. */
export type TranscriptEntry =
  | { readonly type: 'retrieve'; readonly arguments: Record<string, unknown>; readonly result: unknown }
  | { readonly type: 'model'; readonly round: number; readonly content: string; readonly toolCalls: readonly CanonicalToolCall[] }
  | { readonly type: 'tool'; readonly round: number; readonly id: string; readonly name: string; readonly arguments: string; readonly result: unknown }
  | { readonly type: 'invalid_tool_call'; readonly round: number; readonly issues: readonly string[] }
  | { readonly type: 'rejected_answer'; readonly round: number; readonly reason: string };

export interface AskOptions {
  readonly question: string;
  readonly client: ChatClient;
  /** Tools run read-only whatever this says (an answer never writes). */
  readonly tools: Omit<ToolContext, 'writePolicy'>;
  readonly counter: TokenCounter;
  /** `native`: OpenAI tool calls; `json`: the reply protocol. */
  readonly toolCalls: 'native' | 'json';
  /** Most model turns. */
  readonly maxRounds: number;
  /** Prompt plus reply tokens of all turns together. */
  readonly maxTokens: number;
  /** The file the user has open. */
  readonly currentFile?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Each transcript entry as it happens (progress on stderr). */
  readonly onEntry?: ((entry: TranscriptEntry) => void) | undefined;
}

export interface AskResult {
  readonly answer: string;
  /** The answer's citations, each backed by evidence the model was shown. */
  readonly citations: readonly string[];
  /** Model turns taken. */
  readonly rounds: number;
  /** Tokens spent (server counts when reported, else o200k estimates). */
  readonly tokens: number;
  readonly transcript: readonly TranscriptEntry[];
}

/** Tokens the first prompt (system, question, evidence) may take of the run's budget. */
const FIRST_PROMPT_SHARE = 0.4;
/** Budget of one tool result inside the conversation (the runner bounds its envelope to it). */
const TOOL_RESULT_TOKENS = 4000;

interface Run {
  readonly opts: AskOptions;
  readonly ctx: ToolContext;
  readonly messages: ChatMessage[];
  readonly transcript: TranscriptEntry[];
  readonly seen: LineSpan[];
  tokens: number;
}

function record(run: Run, entry: TranscriptEntry): void {
  run.transcript.push(entry);
  run.opts.onEntry?.(entry);
}

export async function askRepository(opts: AskOptions): Promise<AskResult> {
  if (opts.question.trim() === '') throw new EngineError('QUERY_EMPTY', {});
  const ctx: ToolContext = { ...opts.tools, writePolicy: 'read-only', maxTokens: TOOL_RESULT_TOKENS, signal: opts.signal };
  const run: Run = { opts, ctx, messages: [], transcript: [], seen: [], tokens: 0 };
  const found = await retrieveEvidence({ query: opts.question, task: 'qa', ...(opts.currentFile ? { current: { path: opts.currentFile } } : {}) }, ctx);
  record(run, { type: 'retrieve', arguments: found.args, result: found.envelope });
  const prompt = renderRepoQaPrompt({
    question: opts.question,
    currentFile: opts.currentFile,
    evidence: found.window ? [found.window, ...found.evidence] : found.evidence,
    counter: opts.counter,
    maxTokens: Math.max(1000, Math.floor(opts.maxTokens * FIRST_PROMPT_SHARE)),
    system: renderSystemPrompt({ toolCalls: opts.toolCalls }),
  });
  // only what the prompt kept counts as shown
  run.seen.push(...prompt.cited.flatMap((c) => parseCitations(c)));
  run.messages.push(...prompt.messages);
  for (let round = 1; round <= opts.maxRounds; round++) {
    const answer = await turn(run, round);
    if (answer !== undefined) return { answer, citations: parseCitations(answer).map((c) => `${c.path}:${c.startLine}-${c.endLine}`), rounds: round, tokens: run.tokens, transcript: run.transcript };
  }
  throw exhausted(run, `${opts.maxRounds} rounds`, 'the model did not give an answer citing the evidence it was shown');
}

function exhausted(run: Run, limit: string, reason: string): EngineError {
  return new EngineError('LLM_BUDGET_EXHAUSTED', { limit, reason, tokens: run.tokens, transcript: run.transcript });
}

/** One model turn: the accepted answer, or undefined to go on. */
async function turn(run: Run, round: number): Promise<string | undefined> {
  const { opts } = run;
  const preset = DECODING_PRESETS.qa;
  const promptTokens = run.messages.reduce((n, m) => n + opts.counter.count(m.content) + (m.tool_calls ? opts.counter.count(JSON.stringify(m.tool_calls)) : 0), 0);
  if (run.tokens + promptTokens + preset.max_tokens > opts.maxTokens) {
    throw exhausted(run, `${opts.maxTokens} tokens`, `turn ${round} would need ${promptTokens + preset.max_tokens} more tokens after ${run.tokens} spent`);
  }
  const tools = opts.toolCalls === 'native' ? openAiToolDefinitions('read-only') : undefined;
  const reply = await opts.client.chat({ messages: run.messages, preset, tools, turn: round, signal: opts.signal });
  run.tokens += reply.usage ? reply.usage.prompt + reply.usage.completion : promptTokens + opts.counter.count(reply.content);
  record(run, { type: 'model', round, content: reply.content, toolCalls: reply.toolCalls });
  if (reply.toolCalls.length > 0) {
    run.messages.push({ role: 'assistant', content: reply.content, tool_calls: reply.toolCalls });
    const results = await runCalls(run, round, reply.toolCalls);
    for (const r of results) run.messages.push({ role: 'tool', content: JSON.stringify(r.envelope), tool_call_id: r.id, name: r.name });
    return undefined;
  }
  const output = parseAssistantOutput(reply.content);
  run.messages.push({ role: 'assistant', content: reply.content });
  if (output.kind === 'tool_calls') {
    const results = await runCalls(run, round, output.calls);
    run.messages.push({ role: 'user', content: renderToolResults(results) });
    return undefined;
  }
  if (output.kind === 'invalid') {
    record(run, { type: 'invalid_tool_call', round, issues: output.issues });
    run.messages.push({ role: 'user', content: renderToolCallError(output.issues) });
    return undefined;
  }
  const problem = citationProblem(output.text, run.seen);
  if (problem === undefined) return output.text.trim();
  record(run, { type: 'rejected_answer', round, reason: problem });
  run.messages.push({
    role: 'user',
    content: `Your answer was not accepted: ${problem}. Every claim must cite path:start-end of evidence you were shown. If the evidence is not enough, call retrieve_context, search_text or read_file to get more; then answer again with citations.`,
  });
  return undefined;
}

async function runCalls(run: Run, round: number, calls: readonly CanonicalToolCall[]): Promise<ToolCallResult[]> {
  const results = await runToolCalls(calls, run.ctx);
  for (const [i, r] of results.entries()) {
    record(run, { type: 'tool', round, id: r.id, name: r.name, arguments: calls[i]?.function.arguments ?? '', result: r.envelope });
    if (r.envelope.ok) run.seen.push(...spansIn(r.envelope.data));
  }
  return results;
}
