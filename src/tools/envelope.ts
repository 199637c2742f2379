import { isEngineError, type ErrorCode } from '../index.js';

/**
 * The six error codes a tool can return. Stable strings, part of the tool contract
 * (../shared/seeds §17.2): agents branch on them. Add codes, never rename one.
 */
export type ToolErrorCode = 'invalid_arguments' | 'not_found' | 'permission_denied' | 'requires_confirmation' | 'too_large' | 'internal_error';

export const TOOL_ERROR_CODES: readonly ToolErrorCode[] = ['invalid_arguments', 'not_found', 'permission_denied', 'requires_confirmation', 'too_large', 'internal_error'];

/** What was left out of a bounded result: whole items of a list, or lines of a text, never part of a line. */
export interface Omitted {
  /** The field of `data` that was cut (`results`, `files`, `text`...). */
  readonly field: string;
  /** Items (or lines) left out. */
  readonly count: number;
  /** Short labels of the first omitted items (`path:start-end`), so the caller can ask for them. */
  readonly items?: readonly string[];
}

export interface EnvelopeMeta {
  /** True when the result was cut to fit the 200 KB cap or `max_tokens`. */
  readonly truncated: boolean;
  /** UTF-8 size of the whole envelope as JSON (always at most 200,000). */
  readonly bytes: number;
  /** Things the caller should know that are not errors (lexical only, index stale, results cut...). */
  readonly warnings: readonly string[];
  /** What truncation left out. */
  readonly omitted?: readonly Omitted[];
  /** Tokens of the envelope as JSON, when `max_tokens` was given (o200k tokenizer). */
  readonly tokens?: number;
  /**
   * Where the data came from, for tools whose answer has more than one origin (get_diagnostics:
   * `lsp:<server>`, `typescript-api <version> (<config>)`, or `none: <reason>`). Absent otherwise.
   */
  readonly source?: string;
}

/** Details of a failure, in `data` of a failed envelope. */
export interface ToolErrorData {
  readonly message: string;
  readonly hint?: string;
  /** The engine's finer-grained code (`FILE_NOT_FOUND`, `PATH_DENIED`, `PATCH_CONFLICT`...). */
  readonly reason: string;
  /** "Did you mean": paths or names close to what was asked for. */
  readonly suggestions?: readonly string[];
  /** Argument problems, one line each (`max_results: must be at most 50`). */
  readonly issues?: readonly string[];
  /** Anything else the failure carries: a staged change, a proposed diff and its hash. */
  readonly [key: string]: unknown;
}

/** Every tool returns this, success or failure; nothing is thrown through a transport. */
export interface Envelope<T = unknown> {
  readonly ok: boolean;
  /** The result on success; the failure's details (`ToolErrorData`) on failure. */
  readonly data: T | ToolErrorData | null;
  readonly error: ToolErrorCode | null;
  readonly meta: EnvelopeMeta;
}

const BY_ENGINE_CODE: Partial<Record<ErrorCode, ToolErrorCode>> = {
  INVALID_ARGUMENT: 'invalid_arguments',
  QUERY_EMPTY: 'invalid_arguments',
  QUERY_TOO_LONG: 'invalid_arguments',
  PATCH_INVALID: 'invalid_arguments',
  PATCH_CONFLICT: 'invalid_arguments',
  ROOT_MISMATCH: 'invalid_arguments',
  FILE_NOT_FOUND: 'not_found',
  SYMBOL_NOT_FOUND: 'not_found',
  INDEX_NOT_FOUND: 'not_found',
  ROOT_NOT_FOUND: 'not_found',
  PATH_OUTSIDE_ROOT: 'permission_denied',
  PATH_DENIED: 'permission_denied',
  TOKEN_INVALID: 'permission_denied',
  CONFIRMATION_REQUIRED: 'requires_confirmation',
  TOO_LARGE: 'too_large',
  MODEL_NOT_FOUND: 'not_found',
  COLLECTION_NOT_FOUND: 'not_found',
  COLLECTION_EXISTS: 'invalid_arguments',
};

/** The tool code for an engine code; anything unexpected is `internal_error`. */
export function toolErrorCode(code: ErrorCode): ToolErrorCode {
  return BY_ENGINE_CODE[code] ?? 'internal_error';
}

/** Turns anything thrown by a handler into a failed envelope's code and details. */
export function failureOf(err: unknown): { error: ToolErrorCode; data: ToolErrorData } {
  if (isEngineError(err)) {
    const { suggestions, ...rest } = err.data as { suggestions?: unknown };
    const extra = Object.fromEntries(Object.entries(rest).filter(([k]) => k !== 'reason' && k !== 'message' && k !== 'hint'));
    return {
      error: toolErrorCode(err.code),
      data: {
        message: err.message,
        ...(err.hint ? { hint: err.hint } : {}),
        reason: err.code,
        ...(Array.isArray(suggestions) && suggestions.length > 0 ? { suggestions: suggestions.map(String) } : {}),
        ...extra,
      },
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { error: 'internal_error', data: { message: `internal error: ${message}`, hint: 'please report this with the tool call that caused it', reason: 'INTERNAL' } };
}
