/**
 * The chat prompt templates (seed §18): system prompt, tool-use nudge, repo Q&A, explain-diagnostic
 * and refactor proposal, as pure functions of structured inputs and a token budget. The FIM
 * completion prompt is in `fim-prompt.ts`, the sampling settings in `decoding-presets.ts`.
 *
 * All three chat renders return one shape, `ChatPrompt`: a system text and a user text (also as a
 * two-message array), with `counter.count(system) + counter.count(user) <= maxTokens`. Evidence is
 * taken best-first and dropped whole when it does not fit (see `packEvidence`); the question,
 * diagnostic, instruction and refactor target are never dropped: when they cannot fit the render
 * throws TOO_LARGE. Leave a few tokens of `maxTokens` for your chat format's role markers.
 */
import { EngineError } from '../core/errors.js';
import {
  checkEvidence,
  checkMaxTokens,
  citation,
  codeBlock,
  oneLine,
  packEvidence,
  type Evidence,
} from './prompt-blocks.js';
import type { TokenCounter } from './tokens.js';

export type { Evidence } from './prompt-blocks.js';

/** How the model is told to call tools: the JSON reply protocol local runners parse, or native tool calls. */
export type ToolCallStyle = 'json' | 'native';

const TOOL_CALLING: Record<ToolCallStyle, string> = {
  json: `Tool calling:
- If you need tools, respond ONLY with a single JSON object:
  {"type":"tool_call","calls":[{"id":"call_1","name":"tool_name","arguments":{...}}]}
- Otherwise respond with plain text or a unified diff.`,
  native: `Tool calling:
- Call tools through the tool interface you were given, one focused call at a time.
- Otherwise respond with plain text or a unified diff.`,
};

/**
 * The system prompt for chat tasks (seed §18.1): short, strict and repetitive about tools, which
 * small models need. `json` (default) teaches the `{"type":"tool_call",...}` reply that scry's
 * local-model runner parses (`parseAssistantOutput` in `scry/tools`); `native` is for hosts with built-in tool calling.
 * Every tool it names is in scry's tool catalogue.
 */
export function renderSystemPrompt(options: { toolCalls?: ToolCallStyle } = {}): string {
  return `You are an on-device coding assistant working in the user's repository.

Hard rules:
- Do NOT guess file contents. If you need code, use tools like read_file, search_text, search_symbols, retrieve_context.
- If asked about the repository, use retrieve_context and/or search_* tools before answering.
- Keep answers concise and technical. Prefer actionable steps.
- When proposing code changes, output a unified diff. Do not apply changes yourself.
- Never request the entire repository. Fetch only what you need.

${TOOL_CALLING[options.toolCalls ?? 'json']}

Safety:
- If you are not confident because context is missing, call tools to obtain it.`;
}

/** The default system prompt: `renderSystemPrompt()` (JSON tool-call replies). */
export const SYSTEM_PROMPT = renderSystemPrompt();

/** The tool-use nudge (seed §18.2), put right before the user request when `nudge` is on. */
export const TOOL_NUDGE = 'Reminder: Before answering repo questions, call retrieve_context or search_* tools to gather evidence.';

/** Options every chat render takes. */
export interface ChatPromptOptions {
  /** Counts tokens; `count(system) + count(user) <= maxTokens` is guaranteed with it. */
  readonly counter: TokenCounter;
  /** Token budget for system and user text together. */
  readonly maxTokens: number;
  /** Evidence, best first; the tail is dropped whole when over budget. Default none. */
  readonly evidence?: readonly Evidence[];
  /** System text; default `SYSTEM_PROMPT`. Counted in the budget, never trimmed. */
  readonly system?: string;
  /** Start the user text with `TOOL_NUDGE`. Default true for Q&A, false otherwise. */
  readonly nudge?: boolean;
}

/** A rendered chat prompt: the one shape all chat templates return. */
export interface ChatPrompt {
  readonly system: string;
  readonly user: string;
  /** `[{role:'system', content: system}, {role:'user', content: user}]`, ready for a chat API. */
  readonly messages: readonly [{ role: 'system'; content: string }, { role: 'user'; content: string }];
  /** Citation labels (`path:start-end`) of every code block shown, in order. */
  readonly cited: readonly string[];
  /** Citation labels of evidence dropped to fit the budget, in input order. */
  readonly omitted: readonly string[];
  /** `counter.count(system) + counter.count(user)`, never above `maxTokens`. */
  readonly tokens: number;
}

function finish(opts: ChatPromptOptions, system: string, user: string, cited: string[], omitted: string[]): ChatPrompt {
  return {
    system,
    user,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    cited,
    omitted,
    tokens: opts.counter.count(system) + opts.counter.count(user),
  };
}

function nudged(nudge: boolean, user: string): string {
  return nudge ? `${TOOL_NUDGE}\n\n${user}` : user;
}

function checkChat(opts: ChatPromptOptions, required: Record<string, string>): readonly Evidence[] {
  checkMaxTokens(opts.maxTokens);
  for (const [name, value] of Object.entries(required)) {
    if (value.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name, reason: 'must not be empty' });
  }
  const evidence = opts.evidence ?? [];
  checkEvidence(evidence);
  return evidence;
}

/** Inputs of `renderRepoQaPrompt`. */
export interface RepoQaInput extends ChatPromptOptions {
  /** The user's question; always kept verbatim. */
  readonly question: string;
  /** Path of the file the user has open, if any (helps the model scope `retrieve_context`). */
  readonly currentFile?: string;
}

/**
 * Repo Q&A, retrieval-first (seed §18.5). With evidence, the blocks are shown and the model is told
 * to use them first and call `retrieve_context`/`read_file` only for more; with none kept, it gets
 * the seed's "You must gather evidence" instructions. The answer format asks for `path:start-end`
 * citations. Budget: see the module comment; throws TOO_LARGE when system + question do not fit.
 */
export function renderRepoQaPrompt(input: RepoQaInput): ChatPrompt {
  const evidence = checkChat(input, { question: input.question });
  const system = input.system ?? SYSTEM_PROMPT;
  const current = input.currentFile === undefined ? '' : `\nCurrent file: ${oneLine(input.currentFile)}\n`;
  const answer = `Answer with:
- a short direct answer
- then 2-6 bullet points of supporting evidence, each referencing file path + line range (path:start-end) if available`;
  const build = (blocks: readonly string[]): string =>
    nudged(
      input.nudge ?? true,
      blocks.length === 0
        ? `User question:\n${input.question}\n${current}
You must gather evidence from the repo before answering.
Call retrieve_context with a focused query derived from the question and current file.
If more detail is needed, call read_file for specific slices.

${answer}`
        : `User question:\n${input.question}\n${current}
Evidence from the repository (best first; may be partial):

${blocks.join('\n\n')}

Use this evidence first. If it is not enough, call retrieve_context with a focused query derived from the question and current file, or read_file for specific slices.

${answer}`,
    );
  const packed = packEvidence(
    { counter: input.counter, maxTokens: input.maxTokens, system, what: 'the repo Q&A prompt without evidence', hint: 'raise maxTokens or shorten the question' },
    evidence,
    build,
  );
  return finish(input, system, packed.user, packed.cited, packed.omitted);
}

/**
 * One compiler or linter diagnostic. Named apart from the context pack's `Diagnostic`, which is
 * assignable to it (same fields, this one adds `column` and `source`).
 */
export interface PromptDiagnostic {
  readonly path: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column?: number;
  readonly message: string;
  /** Tool-specific code, e.g. `TS2345` or `no-unused-vars`. */
  readonly code?: string | number;
  /** `error`, `warning`, ... as the producer names it. */
  readonly severity?: string;
  /** Which tool reported it, e.g. `tsc` or `eslint`. */
  readonly source?: string;
}

/** Inputs of `renderExplainDiagnosticPrompt`. */
export interface ExplainDiagnosticInput extends ChatPromptOptions {
  /** The diagnostic; always kept (as one line of JSON). */
  readonly diagnostic: PromptDiagnostic;
  /** Language name for the context list; the line is left out when absent. */
  readonly language?: string;
}

/** The diagnostic as compact JSON with a fixed key order (control characters escaped by JSON). */
function diagnosticJson(d: PromptDiagnostic): string {
  const { path, line, column, severity, code, source, message } = d;
  return JSON.stringify({ path, line, column, severity, code, source, message });
}

/**
 * Explain a diagnostic (seed §18.4): context list (language, file, diagnostic JSON), the relevant
 * code as evidence (put the snippet around the diagnostic first), and the fix instructions asking
 * for a unified diff. Budget: see the module comment; throws TOO_LARGE when system + diagnostic +
 * instructions do not fit.
 */
export function renderExplainDiagnosticPrompt(input: ExplainDiagnosticInput): ChatPrompt {
  const d = input.diagnostic;
  const evidence = checkChat(input, { 'diagnostic.message': d.message, 'diagnostic.path': d.path });
  const system = input.system ?? SYSTEM_PROMPT;
  const language = input.language === undefined ? '' : `- Language: ${oneLine(input.language)}\n`;
  const build = (blocks: readonly string[]): string =>
    nudged(
      input.nudge ?? false,
      `You are helping diagnose a build/lint issue.

Context:
${language}- File: ${oneLine(d.path)}
- Diagnostics:
${diagnosticJson(d)}

Relevant code (may be partial):
${blocks.length === 0 ? `(none included; call read_file for the lines around ${oneLine(d.path)}:${d.line})` : blocks.join('\n\n')}

Task:
1) Explain the likely cause in 2-4 sentences.
2) Provide the smallest safe fix.
3) If the fix requires other files or definitions, call tools first.
If you propose a fix, output it as a unified diff.`,
    );
  const packed = packEvidence(
    { counter: input.counter, maxTokens: input.maxTokens, system, what: 'the explain-diagnostic prompt without code', hint: 'raise maxTokens or shorten the diagnostic message' },
    evidence,
    build,
  );
  return finish(input, system, packed.user, packed.cited, packed.omitted);
}

/** Inputs of `renderRefactorPrompt`. */
export interface RefactorInput extends ChatPromptOptions {
  /** What to change; always kept verbatim. */
  readonly instruction: string;
  /** The code to refactor; always kept whole (pass a narrower slice when it is too large). */
  readonly target: {
    readonly path: string;
    readonly text: string;
    /** First line of `text` in the file; default 1. */
    readonly startLine?: number;
    readonly language?: string;
  };
}

/**
 * Refactor proposal with minimal edits (seed §18.6): goal, constraints (behaviour kept, small diffs,
 * unified diff only), the target code cited as `path:start-end`, then related evidence. Budget: see
 * the module comment; the target is required context, so TOO_LARGE is thrown when system +
 * instruction + target do not fit.
 */
export function renderRefactorPrompt(input: RefactorInput): ChatPrompt {
  const evidence = checkChat(input, { instruction: input.instruction });
  const { target } = input;
  const startLine = target.startLine ?? 1;
  const endLine = startLine + Math.max(0, target.text.replace(/\n$/, '').split('\n').length - 1);
  checkEvidence([{ path: target.path, startLine, endLine, text: target.text }], 'target');
  const targetLabel = citation({ path: target.path, startLine, endLine });
  const system = input.system ?? SYSTEM_PROMPT;
  const build = (blocks: readonly string[]): string =>
    nudged(
      input.nudge ?? false,
      `You are proposing a refactor. Make minimal changes.

Goal:
${input.instruction}

Constraints:
- Keep behavior identical unless stated otherwise.
- Prefer small diffs.
- If you need more context, call retrieve_context or read_file.
- Output only a unified diff.

Current file context:
${targetLabel}
${codeBlock(target.text, target.language)}${blocks.length === 0 ? '' : `\n\nRelated code (may be partial):\n\n${blocks.join('\n\n')}`}`,
    );
  const packed = packEvidence(
    { counter: input.counter, maxTokens: input.maxTokens, system, what: 'the refactor prompt with its target code', hint: 'raise maxTokens or pass a narrower target slice' },
    evidence,
    build,
  );
  return finish(input, system, packed.user, [targetLabel, ...packed.cited], packed.omitted);
}
