import { EngineError } from '../core/errors.js';

/**
 * One replacement in a file, LSP-style: the range `[start, end)` of the text as it is before any
 * edit of the same call is replaced by `replacement`. The tools spell the fields in snake_case
 * (`start_line`, `start_col`...; ../shared/seeds §17.4.2).
 */
export interface TextEdit {
  /** First line of the range, 1-based. */
  readonly startLine: number;
  /** Offset in `startLine`, 0-based, in UTF-16 code units (JavaScript string indices); at most the line's length. */
  readonly startCol: number;
  /** Last line of the range, 1-based; ≥ `startLine`. The line after the last newline (empty) is the end of the file. */
  readonly endLine: number;
  /** Offset in `endLine`, exclusive; the line's length ends the range before its line break. */
  readonly endCol: number;
  /** The new text; `\n` line breaks become `\r\n` in a file that uses only CRLF (and the reverse). */
  readonly replacement: string;
}

/** Edits one call may carry. */
export const MAX_EDITS = 1000;
/** Replacement text one call may carry, UTF-8 bytes in total (the same cap as a diff). */
export const MAX_REPLACEMENT_BYTES = 1_000_000;

interface Span {
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly edit: TextEdit;
}

/**
 * Applies `edits` to `text` in memory. Positions all refer to the original text, so the result is
 * the same as applying them bottom-up one by one. Malformed or overlapping edits → PATCH_INVALID;
 * a position outside the file → PATCH_CONFLICT naming the edit, the line and the file's extent.
 * Two insertions at one position keep their order in `edits`.
 */
export function applyTextEdits(path: string, text: string, edits: readonly TextEdit[]): string {
  if (!Array.isArray(edits) || edits.length === 0) throw new EngineError('PATCH_INVALID', { reason: 'edits must be a non-empty list' });
  if (edits.length > MAX_EDITS) throw new EngineError('TOO_LARGE', { what: 'the edit list', size: edits.length, unit: 'edits', limit: MAX_EDITS, count: edits.length, maxEdits: MAX_EDITS });
  edits.forEach(checkShape);
  const bytes = editBytes(edits);
  if (bytes > MAX_REPLACEMENT_BYTES) throw new EngineError('TOO_LARGE', { what: 'the replacement text of the edits', size: bytes, unit: 'bytes', limit: MAX_REPLACEMENT_BYTES });
  const lines = lineTable(text);
  const spans = edits
    .map((edit, index): Span => ({ index, start: offsetOf(path, text, lines, edit, index, 'start'), end: offsetOf(path, text, lines, edit, index, 'end'), edit }))
    .sort((a, b) => a.start - b.start || a.end - b.end || a.index - b.index);
  for (let i = 1; i < spans.length; i++) {
    const a = spans[i - 1]!;
    const b = spans[i]!;
    if (b.start < a.end) {
      const [first, second] = a.index < b.index ? [a, b] : [b, a];
      throw new EngineError('PATCH_INVALID', { reason: `edits ${first.index + 1} (${rangeLabel(first.edit)}) and ${second.index + 1} (${rangeLabel(second.edit)}) overlap; merge them into one edit`, edits: [first.index + 1, second.index + 1] });
    }
  }
  const convert = lineEndingConverter(text);
  const out: string[] = [];
  let cursor = 0;
  for (const s of spans) {
    out.push(text.slice(cursor, s.start), convert(s.edit.replacement));
    cursor = s.end;
  }
  out.push(text.slice(cursor));
  return out.join('');
}

function editBytes(edits: readonly TextEdit[]): number {
  let n = 0;
  for (const e of edits) n += typeof e?.replacement === 'string' ? Buffer.byteLength(e.replacement, 'utf8') : 0;
  return n;
}

function checkShape(edit: TextEdit, index: number): void {
  const where = `edit ${index + 1}`;
  if (typeof edit !== 'object' || edit === null) throw new EngineError('PATCH_INVALID', { reason: `${where} must be an object {start_line, start_col, end_line, end_col, replacement}`, edit: index + 1 });
  const fields: Array<[keyof TextEdit, string, number]> = [['startLine', 'start_line', 1], ['startCol', 'start_col', 0], ['endLine', 'end_line', 1], ['endCol', 'end_col', 0]];
  for (const [key, name, min] of fields) {
    const v = edit[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new EngineError('PATCH_INVALID', { reason: `${where}: ${name} must be an integer ≥ ${min}`, edit: index + 1 });
  }
  if (typeof edit.replacement !== 'string') throw new EngineError('PATCH_INVALID', { reason: `${where}: replacement must be a string (empty to delete)`, edit: index + 1 });
  if (edit.endLine < edit.startLine || (edit.endLine === edit.startLine && edit.endCol < edit.startCol)) {
    throw new EngineError('PATCH_INVALID', { reason: `${where}: the end (${edit.endLine}:${edit.endCol}) is before the start (${edit.startLine}:${edit.startCol})`, edit: index + 1 });
  }
}

/** Start offset of each line; a text ending in a newline has a last, empty line (its end). */
function lineTable(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Length of line `k` (0-based) without its line break (`\n` or `\r\n`). */
function lineLength(text: string, starts: readonly number[], k: number): number {
  const next = starts[k + 1];
  if (next === undefined) return text.length - starts[k]!;
  const end = next - 1;
  return (end > starts[k]! && text.charCodeAt(end - 1) === 13 ? end - 1 : end) - starts[k]!;
}

function offsetOf(path: string, text: string, starts: readonly number[], edit: TextEdit, index: number, side: 'start' | 'end'): number {
  const line = side === 'start' ? edit.startLine : edit.endLine;
  const col = side === 'start' ? edit.startCol : edit.endCol;
  const where = `edit ${index + 1} (${rangeLabel(edit)})`;
  if (line > starts.length) {
    const hint = text.endsWith('\n') ? `; line ${starts.length} is the empty line after the last newline` : '';
    throw new EngineError('PATCH_CONFLICT', { path, reason: `${where}: ${side}_line ${line} is past the end of the file, which has ${starts.length} line${starts.length === 1 ? '' : 's'}${hint}`, edit: index + 1, line });
  }
  const length = lineLength(text, starts, line - 1);
  if (col > length) {
    throw new EngineError('PATCH_CONFLICT', { path, reason: `${where}: ${side}_col ${col} is past the end of line ${line}, which is ${length} UTF-16 code units long; to reach into the next line use ${side}_line ${line + 1}, ${side}_col 0`, edit: index + 1, line, found: clip(text.slice(starts[line - 1]!, starts[line - 1]! + length)) });
  }
  const offset = starts[line - 1]! + col;
  const c = text.charCodeAt(offset);
  if (c >= 0xdc00 && c <= 0xdfff && offset > 0 && isHighSurrogate(text.charCodeAt(offset - 1))) {
    throw new EngineError('PATCH_CONFLICT', { path, reason: `${where}: ${side}_col ${col} falls inside a character of line ${line} (a UTF-16 surrogate pair); use ${col - 1} or ${col + 1}`, edit: index + 1, line });
  }
  return offset;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Makes replacement line breaks match a file that uses only CRLF or only LF; a mixed file is left as written. */
function lineEndingConverter(text: string): (s: string) => string {
  const crlf = text.includes('\r\n');
  const bareLf = /(^|[^\r])\n/.test(text);
  if (crlf && !bareLf) return (s) => s.replace(/\r?\n/g, '\r\n');
  if (bareLf && !crlf) return (s) => s.replace(/\r\n/g, '\n');
  return (s) => s;
}

function rangeLabel(e: TextEdit): string {
  return `${e.startLine}:${e.startCol}-${e.endLine}:${e.endCol}`;
}

function clip(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
