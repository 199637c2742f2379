/**
 * The one seam through which the agent surfaces (MCP prompts, `scry ask`, `scry complete`) get
 * repository evidence: a `retrieve_context` call through `runTool`, the same path a model's own
 * tool call takes, turned into the prompt templates' `Evidence`. A task (`fix`, `test`,
 * `refactor`, `explain`, `qa`, `complete`), diagnostics and a model's draft are passed on when the
 * catalogue's `retrieve_context` takes them (task-aware and iterative retrieval, issue 20), and
 * left out otherwise, so this module does not change when those arguments arrive.
 */
import { EngineError, ERROR_CODES, type ErrorCode, type Evidence } from '../index.js';
import { runTool, TOOLS, type Envelope, type ToolContext } from '../tools/index.js';

/** What a surface asks evidence for. */
export interface EvidenceRequest {
  /** Words and identifiers of the question, instruction, diagnostic or draft. */
  readonly query: string;
  /** What the evidence is for; forwarded when `retrieve_context` accepts a task. */
  readonly task?: 'fix' | 'test' | 'refactor' | 'explain' | 'qa' | 'complete' | undefined;
  /** The file being edited and the cursor line. */
  readonly current?: { readonly path: string; readonly line?: number | undefined } | undefined;
  /** Token budget of the pack (256–100,000); default the tool's. */
  readonly tokens?: number | undefined;
  /** Most pieces (1–20); default the tool's (8). */
  readonly maxChunks?: number | undefined;
  /** A model's draft (round 2 of iterative retrieval); forwarded when `retrieve_context` takes `draft`. */
  readonly draft?: string | undefined;
  /** Compiler or linter diagnostics; forwarded when `retrieve_context` takes `diagnostics`. */
  readonly diagnostics?: ReadonlyArray<{ path: string; line: number; message: string; severity?: string; code?: string | number }> | undefined;
}

/** The evidence found, best first, and the envelope it came from (for transcripts). */
export interface EvidenceResult {
  readonly evidence: Evidence[];
  /** The current file's window, when one was asked for and could be read. */
  readonly window?: Evidence | undefined;
  readonly envelope: Envelope;
  /** The arguments `retrieve_context` was called with. */
  readonly args: Record<string, unknown>;
}

const CITE = /^(.*):(\d+)-(\d+)$/;

/** True when the catalogue's `retrieve_context` declares the argument. */
export function retrieveTakes(argument: 'task' | 'draft' | 'diagnostics'): boolean {
  const tool = TOOLS.find((t) => t.name === 'retrieve_context');
  return tool !== undefined && Object.prototype.hasOwnProperty.call(tool.input, argument);
}

/** `retrieve_context` arguments for a request. */
export function retrieveArgs(request: EvidenceRequest): Record<string, unknown> {
  return {
    query: request.query,
    ...(request.task !== undefined && retrieveTakes('task') ? { task: request.task } : {}),
    ...(request.draft !== undefined && request.draft.trim() !== '' && retrieveTakes('draft') ? { draft: request.draft.slice(0, 16_384) } : {}),
    ...(request.diagnostics !== undefined && request.diagnostics.length > 0 && retrieveTakes('diagnostics') ? { diagnostics: request.diagnostics } : {}),
    ...(request.current ? { current_path: request.current.path, ...(request.current.line !== undefined ? { current_line: request.current.line } : {}) } : {}),
    ...(request.tokens !== undefined ? { tokens: request.tokens } : {}),
    ...(request.maxChunks !== undefined ? { max_chunks: request.maxChunks } : {}),
  };
}

/** The pieces of a successful `retrieve_context` envelope as `Evidence`, best first. */
export function evidenceOf(envelope: Envelope): { evidence: Evidence[]; window?: Evidence | undefined } {
  if (!envelope.ok) return { evidence: [] };
  const data = envelope.data as {
    pieces?: readonly { cite: string; text: string; hashes?: readonly string[] }[];
    current_file?: { path: string; start_line: number; end_line: number; text: string };
  };
  const evidence: Evidence[] = [];
  for (const piece of data.pieces ?? []) {
    const m = CITE.exec(piece.cite);
    if (!m) continue;
    const hash = piece.hashes?.[0];
    evidence.push({ path: m[1]!, startLine: Number(m[2]), endLine: Number(m[3]), text: piece.text, ...(hash !== undefined ? { hash } : {}) });
  }
  const w = data.current_file;
  const window = w && w.end_line >= w.start_line ? { path: w.path, startLine: w.start_line, endLine: w.end_line, text: w.text } : undefined;
  return { evidence, window };
}

/**
 * Evidence for a request through `retrieve_context`. A failed call throws its engine error
 * (FILE_NOT_FOUND, PATH_DENIED, INVALID_ARGUMENT...) so surfaces report it with its code; an
 * empty result is not an error (the caller decides whether it may answer from nothing).
 */
export async function retrieveEvidence(request: EvidenceRequest, ctx: ToolContext): Promise<EvidenceResult> {
  const args = retrieveArgs(request);
  const envelope = await runTool('retrieve_context', args, ctx);
  if (!envelope.ok) {
    // the envelope carries the engine's code and the data its message was filled from
    const { reason, message: _message, hint, ...data } = (envelope.data ?? {}) as { reason?: string; message?: string; hint?: string };
    const code = ERROR_CODES.includes(reason as ErrorCode) ? (reason as ErrorCode) : 'INTERNAL';
    throw new EngineError(code, code === 'INTERNAL' ? { reason: `retrieve_context failed: ${_message ?? envelope.error ?? 'unknown'}` } : data, hint !== undefined ? { hint } : undefined);
  }
  return { ...evidenceOf(envelope), envelope, args };
}
