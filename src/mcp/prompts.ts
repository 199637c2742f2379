/**
 * The prompt templates (context/prompt-templates.ts, fim-prompt.ts) served as MCP prompts
 * (`prompts/list`, `prompts/get`): repo Q&A, explain a diagnostic, refactor, FIM completion and
 * the system prompt. Evidence is filled through `retrieve_context` (agent/evidence.ts), so a
 * client gets a prompt with cited code in one request. Bad or missing arguments are JSON-RPC
 * InvalidParams errors naming the argument; an engine error keeps its code in the message and in
 * `data.code`.
 */
import { ErrorCode, McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import {
  DECODING_PRESETS,
  isEngineError,
  loadTokenCounter,
  renderExplainDiagnosticPrompt,
  renderRefactorPrompt,
  renderRepoQaPrompt,
  renderSystemPrompt,
  type ChatPrompt,
  type Evidence,
} from '../index.js';
import { retrieveEvidence } from '../agent/evidence.js';
import { renderFimWithContext } from '../agent/fim-context.js';
import { identifiersOf, textAround } from '../agent/complete.js';
import type { ToolContext } from '../tools/index.js';

type Args = Readonly<Record<string, string | undefined>>;

interface PromptDef extends Prompt {
  readonly get: (args: Args, ctx: ToolContext) => Promise<GetPromptResult>;
}

const TOKENS_ARG = { name: 'tokens', description: 'Token budget of the prompt (o200k), 512–100000; default 8000 (4096 for fim_completion).', required: false };

function required(args: Args, name: string): string {
  const v = args[name];
  if (v === undefined || v.trim() === '') throw new McpError(ErrorCode.InvalidParams, `missing required argument "${name}"`);
  return v;
}

function int(args: Args, name: string, min: number, max: number, fallback?: number): number | undefined {
  const v = args[name];
  if (v === undefined || v.trim() === '') return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new McpError(ErrorCode.InvalidParams, `argument "${name}" must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

const budget = (args: Args, fallback = 8000): number => int(args, 'tokens', 512, 100_000, fallback)!;

/** The rendered chat prompt as one user message (MCP prompts have no system role), the system text first. */
function chatResult(description: string, prompt: ChatPrompt, preset: keyof typeof DECODING_PRESETS): GetPromptResult {
  return {
    description,
    messages: [{ role: 'user', content: { type: 'text', text: `${prompt.system}\n\n${prompt.user}` } }],
    _meta: { cited: prompt.cited, omitted: prompt.omitted, tokens: prompt.tokens, decoding: DECODING_PRESETS[preset] },
  };
}

const system = (): string => renderSystemPrompt({ toolCalls: 'native' });

const repoQa: PromptDef = {
  name: 'repo_qa',
  title: 'Ask about the repository',
  description: 'Repository Q&A, retrieval first: the question with the most relevant code from the index (retrieve_context), each piece cited path:start-end, and instructions to answer with citations.',
  arguments: [
    { name: 'question', description: 'The question about the code.', required: true },
    { name: 'current_file', description: 'Path of the file you have open (relative to the project root).', required: false },
    TOKENS_ARG,
  ],
  get: async (args, ctx) => {
    const question = required(args, 'question');
    const current = args.current_file?.trim() ? args.current_file : undefined;
    const tokens = budget(args);
    const found = await retrieveEvidence({ query: question, task: 'qa', tokens: Math.max(256, Math.floor(tokens * 0.8)), ...(current ? { current: { path: current } } : {}) }, ctx);
    const counter = await loadTokenCounter();
    const evidence = found.window ? [found.window, ...found.evidence] : found.evidence;
    return chatResult(`Q&A: ${question.slice(0, 80)}`, renderRepoQaPrompt({ question, currentFile: current, evidence, counter, maxTokens: tokens, system: system() }), 'qa');
  },
};

const explainDiagnostic: PromptDef = {
  name: 'explain_diagnostic',
  title: 'Explain a diagnostic',
  description: 'Explain a compiler or linter diagnostic and propose the smallest fix as a unified diff: the diagnostic, the code around it, and related code from the index.',
  arguments: [
    { name: 'path', description: 'File of the diagnostic, relative to the project root.', required: true },
    { name: 'line', description: '1-based line of the diagnostic.', required: true },
    { name: 'message', description: 'The diagnostic message.', required: true },
    { name: 'column', description: '1-based column.', required: false },
    { name: 'code', description: 'Tool-specific code, e.g. TS2345.', required: false },
    { name: 'severity', description: 'error, warning, ...', required: false },
    { name: 'source', description: 'The tool that reported it, e.g. tsc or eslint.', required: false },
    TOKENS_ARG,
  ],
  get: async (args, ctx) => {
    const path = required(args, 'path');
    const message = required(args, 'message');
    const line = int(args, 'line', 1, 10_000_000)!;
    const column = int(args, 'column', 1, 1_000_000);
    const tokens = budget(args);
    const diagnostic = { path, line, message, ...(column !== undefined ? { column } : {}), ...(args.code ? { code: args.code } : {}), ...(args.severity ? { severity: args.severity } : {}), ...(args.source ? { source: args.source } : {}) };
    const { column: _c, source: _s, ...forRetrieval } = diagnostic;
    const found = await retrieveEvidence({ query: message, task: 'explain', diagnostics: [forRetrieval], current: { path, line }, tokens: Math.max(256, Math.floor(tokens * 0.8)) }, ctx);
    const counter = await loadTokenCounter();
    const evidence = found.window ? [found.window, ...found.evidence] : found.evidence;
    return chatResult(`Explain ${path}:${line}`, renderExplainDiagnosticPrompt({ diagnostic, evidence, counter, maxTokens: tokens, system: system() }), 'explain');
  },
};

const refactor: PromptDef = {
  name: 'refactor',
  title: 'Propose a refactor',
  description: 'Propose a refactor as a minimal unified diff: the instruction, the target lines of a file, and related code (importers, callers) from the index.',
  arguments: [
    { name: 'instruction', description: 'What to change.', required: true },
    { name: 'path', description: 'File to refactor, relative to the project root.', required: true },
    { name: 'start_line', description: 'First line of the target (default 1).', required: false },
    { name: 'end_line', description: 'Last line of the target (default: 200 lines on).', required: false },
    TOKENS_ARG,
  ],
  get: async (args, ctx) => {
    const instruction = required(args, 'instruction');
    const path = required(args, 'path');
    const start = int(args, 'start_line', 1, 10_000_000, 1)!;
    const end = int(args, 'end_line', start, 10_000_000, start + 199)!;
    const tokens = budget(args);
    const slice = await ctx.engine.readFile(path, { startLine: start, endLine: end });
    const found = await retrieveEvidence({ query: instruction, task: 'refactor', current: { path, line: start }, tokens: Math.max(256, Math.floor(tokens * 0.5)) }, ctx);
    const counter = await loadTokenCounter();
    const evidence = found.evidence.filter((e: Evidence) => e.path !== path || e.endLine < slice.startLine || e.startLine > slice.endLine);
    const target = { path: slice.path, text: slice.text, startLine: slice.startLine, language: slice.language };
    return chatResult(`Refactor ${path}:${slice.startLine}-${slice.endLine}`, renderRefactorPrompt({ instruction, target, evidence, counter, maxTokens: tokens, system: system() }), 'refactor');
  },
};

const fimCompletion: PromptDef = {
  name: 'fim_completion',
  title: 'Complete code at a cursor (FIM)',
  description: 'A fill-in-the-middle prompt for a code model: the code before and after the cursor with <|fim_prefix|>/<|fim_suffix|>/<|fim_middle|> markers, repository context as comments at its head; _meta.decoding holds the sampling preset (stop at a blank line).',
  arguments: [
    { name: 'path', description: 'File being edited, relative to the project root.', required: true },
    { name: 'line', description: '1-based cursor line.', required: true },
    { name: 'column', description: '1-based cursor column (default: end of the line).', required: false },
    TOKENS_ARG,
  ],
  get: async (args, ctx) => {
    const path = required(args, 'path');
    const line = int(args, 'line', 1, 10_000_000)!;
    const column = int(args, 'column', 1, 1_000_000);
    const tokens = budget(args, 4096);
    const around = await textAround(ctx, { path, line, column });
    const near = `${around.prefix.split('\n').slice(-12).join('\n')}\n${around.suffix.split('\n').slice(0, 4).join('\n')}`;
    const words = identifiersOf(near);
    const found = await retrieveEvidence({ query: words.length > 0 ? words.join(' ') : path, task: 'complete', current: { path, line }, tokens: 2000, maxChunks: 6 }, ctx);
    const counter = await loadTokenCounter();
    const fim = renderFimWithContext({ path, language: around.language, prefix: around.prefix, suffix: around.suffix, evidence: found.evidence.filter((e) => e.path !== path), counter, maxTokens: tokens });
    return {
      description: `FIM completion at ${path}:${line}:${around.column}`,
      messages: [{ role: 'user', content: { type: 'text', text: fim.prompt } }],
      _meta: { context: fim.context, tokens: fim.tokens, truncated: fim.truncated, decoding: DECODING_PRESETS.completion },
    };
  },
};

const systemPrompt: PromptDef = {
  name: 'system_prompt',
  title: 'System prompt for a local model',
  description: "scry's system prompt for a coding assistant using its tools: strict about gathering evidence before answering and proposing changes as unified diffs.",
  arguments: [{ name: 'tool_calls', description: '"native" (default; the host offers tools) or "json" (the model replies with {"type":"tool_call",...} objects).', required: false }],
  get: async (args) => {
    const style = args.tool_calls?.trim() || 'native';
    if (style !== 'native' && style !== 'json') throw new McpError(ErrorCode.InvalidParams, `argument "tool_calls" must be "native" or "json", got "${style}"`);
    return Promise.resolve({ description: 'scry system prompt', messages: [{ role: 'user', content: { type: 'text', text: renderSystemPrompt({ toolCalls: style }) } }] });
  },
};

/** The prompts, in `prompts/list` order. */
export const PROMPTS: readonly PromptDef[] = [repoQa, explainDiagnostic, refactor, fimCompletion, systemPrompt];

/** `prompts/list`: the prompts without their handlers. */
export function listPrompts(): Prompt[] {
  return PROMPTS.map(({ get: _get, ...prompt }) => prompt);
}

/** Engine errors a client can fix by changing the arguments. */
const ARGUMENT_CODES = new Set(['INVALID_ARGUMENT', 'QUERY_EMPTY', 'QUERY_TOO_LONG', 'FILE_NOT_FOUND', 'PATH_DENIED', 'PATH_OUTSIDE_ROOT', 'TOO_LARGE']);

/** `prompts/get`. */
export async function getPrompt(name: string, args: Args | undefined, ctx: ToolContext): Promise<GetPromptResult> {
  const def = PROMPTS.find((p) => p.name === name);
  if (!def) throw new McpError(ErrorCode.InvalidParams, `unknown prompt "${name}"; prompts: ${PROMPTS.map((p) => p.name).join(', ')}`);
  const known = new Set(def.arguments?.map((a) => a.name));
  const unknown = Object.keys(args ?? {}).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new McpError(ErrorCode.InvalidParams, `prompt "${name}" has no argument ${unknown.map((k) => `"${k}"`).join(', ')}; it takes ${[...known].join(', ')}`);
  try {
    await ctx.ready?.();
    return await def.get(args ?? {}, ctx);
  } catch (err) {
    if (!isEngineError(err)) throw err;
    const code = ARGUMENT_CODES.has(err.code) ? ErrorCode.InvalidParams : ErrorCode.InternalError;
    throw new McpError(code, `[${err.code}] ${err.message}`, { code: err.code, ...(err.hint ? { hint: err.hint } : {}) });
  }
}
