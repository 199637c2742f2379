/**
 * Validation of a context request (engine.context, retrieve_context, `scry context`): every field
 * checked before an index is opened, each failure an INVALID_ARGUMENT naming the field. Pure.
 */
import { EngineError } from '../core/errors.js';
import { CONTEXT_TASKS, type ContextTask } from '../context/task-strategy.js';
import type { ContextOptions } from './engine-api.js';

export const DEFAULT_CONTEXT_TOKENS = 8000;
/** Terminal output, diffs and drafts longer than these are refused (a log's tail is what is parsed). */
export const MAX_LOG_BYTES = 10_000_000;
export const MAX_DIFF_BYTES = 5_000_000;
export const MAX_DRAFT_CHARS = 65_536;
export const MAX_OPEN_FILES = 100;
export const MAX_DIAGNOSTICS = 500;

function invalid(name: string, reason: string): EngineError {
  return new EngineError('INVALID_ARGUMENT', { name, reason });
}

export function intOption(name: string, value: unknown, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalid(name, `must be an integer from ${min} to ${max}`);
  return value;
}

function stringOption(name: string, value: unknown, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(name, 'must be a string');
  if (value.length > max) throw invalid(name, `must be at most ${max} characters`);
  return value;
}

function pathOption(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 1024 || value.includes('\0')) throw invalid(name, 'must be a non-empty path of at most 1024 characters');
  return value;
}

function checkDiagnostics(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.length > MAX_DIAGNOSTICS) throw invalid('diagnostics', `must be a list of at most ${MAX_DIAGNOSTICS} diagnostics`);
  value.forEach((d: unknown, i) => {
    if (typeof d !== 'object' || d === null) throw invalid(`diagnostics[${i}]`, 'must be an object with path, line and message');
    const { path, line, message, severity, code } = d as Record<string, unknown>;
    pathOption(`diagnostics[${i}].path`, path);
    intOption(`diagnostics[${i}].line`, line ?? 0, 1, Number.MAX_SAFE_INTEGER, 1);
    if (typeof message !== 'string' || message.length > 4096) throw invalid(`diagnostics[${i}].message`, 'must be a string of at most 4096 characters');
    if (severity !== undefined && typeof severity !== 'string') throw invalid(`diagnostics[${i}].severity`, 'must be a string');
    if (code !== undefined && typeof code !== 'string' && typeof code !== 'number') throw invalid(`diagnostics[${i}].code`, 'must be a string or a number');
  });
}

function checkSelection(options: ContextOptions): void {
  const sel = options.selection as unknown;
  if (sel === undefined) return;
  if (options.current === undefined) throw invalid('selection', 'needs current (the file the selection is in)');
  if (typeof sel !== 'object' || sel === null) throw invalid('selection', 'must be { startLine, endLine }');
  const { startLine, endLine } = sel as Record<string, unknown>;
  const start = intOption('selection.startLine', startLine ?? 0, 1, Number.MAX_SAFE_INTEGER, 1);
  intOption('selection.endLine', endLine ?? 0, start, Number.MAX_SAFE_INTEGER, start);
}

/** The task of a request (default `qa`), or INVALID_ARGUMENT listing the tasks. */
export function taskOption(value: unknown): ContextTask {
  if (value === undefined) return 'qa';
  if (typeof value !== 'string' || !(CONTEXT_TASKS as readonly string[]).includes(value)) throw invalid('task', `must be one of ${CONTEXT_TASKS.join(', ')}`);
  return value as ContextTask;
}

/**
 * The token budget and task of a context request, or INVALID_ARGUMENT (checked before any index is
 * opened). The query may be empty for a task other than `qa` when the request says where to look
 * (current file, log, diff or diagnostics).
 */
export function checkContextRequest(query: unknown, options: ContextOptions = {}): number {
  const task = taskOption(options.task);
  if (typeof query !== 'string') throw invalid('query', 'must be a string');
  const current = options.current as unknown;
  if (current !== undefined) {
    if (typeof current !== 'object' || current === null) throw invalid('current', 'must be { path, line? }');
    const c = current as Record<string, unknown>;
    pathOption('current.path', c.path);
    intOption('current.line', c.line, 1, Number.MAX_SAFE_INTEGER, 1);
  }
  checkSelection(options);
  const log = stringOption('log', options.log, MAX_LOG_BYTES);
  const diff = stringOption('diff', options.diff, MAX_DIFF_BYTES);
  stringOption('draft', options.draft, MAX_DRAFT_CHARS);
  const open = options.openFiles as unknown;
  if (open !== undefined) {
    if (!Array.isArray(open) || open.length > MAX_OPEN_FILES) throw invalid('openFiles', `must be a list of at most ${MAX_OPEN_FILES} paths`);
    open.forEach((p: unknown, i) => pathOption(`openFiles[${i}]`, p));
  }
  checkDiagnostics(options.diagnostics);
  const located = current !== undefined || (log ?? '').trim() !== '' || (diff ?? '').trim() !== '' || (options.diagnostics ?? []).length > 0;
  if (query.trim() === '' && (task === 'qa' || !located)) {
    throw invalid('query', task === 'qa' ? 'must be a non-empty string' : `must be a non-empty string, or give current, log, diff or diagnostics for task ${task}`);
  }
  return intOption('tokens', options.tokens, 256, 100_000, DEFAULT_CONTEXT_TOKENS);
}
