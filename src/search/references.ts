import { EngineError } from '../core/errors.js';
import type { UseKind } from '../core/symbol.js';
import type { IndexStore } from '../store/index-store.js';
import { holdingText, nameCandidates, parseNameUses } from './name-occurrences.js';
import type { ParsedFilesOptions } from './parsed-files.js';

/**
 * How a name occurs: where it is defined, called, imported, otherwise used in code, or only
 * mentioned in a comment, string or a file without a grammar (`text`).
 */
export type ReferenceKind = 'definition' | 'call' | 'import' | 'reference' | 'text';

export interface Reference {
  readonly line: number;
  /** 1-based, UTF-16 code units. */
  readonly column: number;
  readonly kind: ReferenceKind;
  /** The line, trimmed and cut at 200 characters. */
  readonly text: string;
}

export interface ReferenceGroup {
  readonly path: string;
  readonly language: string;
  readonly references: Reference[];
}

export interface ReferencesResult {
  readonly name: string;
  readonly files: ReferenceGroup[];
  /** References returned (at most `limit`). */
  readonly total: number;
  /** True when more references exist than were returned. */
  readonly truncated: boolean;
  /**
   * Files parsed to classify the name's occurrences (the candidate files whose language has a
   * grammar of its own; the index stores no identifier uses since schema 11): now, whole or by
   * windows, or by an earlier call of the same engine (its kinds cache).
   */
  readonly parsed: number;
  /**
   * Present when the search stopped after parsing MAX_PARSED_FILES files with references left
   * below `limit`: a larger limit does not return more (`truncated` is true as well).
   */
  readonly parseCapped?: true;
  /** `lsp`: the language server's references of one definition; `name`: every occurrence of the name (set by the engine). */
  readonly resolution?: 'lsp' | 'name' | undefined;
  /** The server that answered (`typescript`, `python`...) when `resolution` is `lsp`. */
  readonly server?: string | undefined;
  /** Why a server did not answer, when one was configured. */
  readonly fallback?: string | undefined;
}

/** Files parsed at most per query (each takes a few milliseconds): a name in more files is reported as truncated. */
export const MAX_PARSED_FILES = 500;
const NAME_RE = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;
const KIND_ORDER: Record<ReferenceKind, number> = { definition: 0, call: 1, import: 2, reference: 3, text: 4 };

/** The trimmed identifier of a references lookup, or QUERY_EMPTY / INVALID_ARGUMENT (checked before any index is opened). */
export function checkReferenceQuery(name: unknown, limit: number): string {
  const n = typeof name === 'string' ? name.trim() : '';
  if (n === '') throw new EngineError('QUERY_EMPTY');
  if (!NAME_RE.test(n) || n.length > 200) throw new EngineError('INVALID_ARGUMENT', { name: 'name', reason: 'an identifier: letters, digits, _ and $, not starting with a digit' });
  if (!Number.isInteger(limit) || limit < 1 || limit > 5000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 5000' });
  return n;
}

/**
 * References to a name, by name (not type-resolved). Candidate files come from the FTS index
 * (nameCandidates: where it is defined first); each candidate's stored text that holds the name
 * exactly is scanned for the name at word boundaries, and a file whose language
 * has a grammar of its own is parsed now (by the windows that hold the name where they check out:
 * parsed-files.ts) to give each occurrence the kind of the identifier there (definition, call,
 * import, reference; `parsed` counts them); an occurrence that is no identifier is `text`. At
 * most MAX_PARSED_FILES files are parsed per call: past that the result is `truncated` (and
 * `parseCapped`). `options.cache` keeps the kinds across calls (the engine's).
 */
export async function findReferences(store: IndexStore, name: string, limit: number, options: ParsedFilesOptions = {}): Promise<ReferencesResult> {
  const n = checkReferenceQuery(name, limit);
  const candidates = nameCandidates(store, n);
  const files: ReferenceGroup[] = [];
  let total = 0;
  let parsed = 0;
  let truncated = candidates.truncated;
  let parseCapped = false;
  for (const file of candidates.files) {
    const text = holdingText(store, file, n);
    if (text === undefined) continue;
    if (total >= limit || parsed >= MAX_PARSED_FILES) {
      // truncated only if another file has an occurrence (the name's bytes inside a longer word are none)
      if (scanFile(text, n, undefined).length === 0) continue;
      truncated = true;
      parseCapped = total < limit;
      break;
    }
    const kinds = await parseNameUses(store, file, n, text, options);
    if (kinds) parsed++;
    let refs = scanFile(text, n, kinds);
    if (refs.length === 0) continue;
    if (total + refs.length > limit) {
      refs = refs.slice(0, limit - total);
      truncated = true;
    }
    total += refs.length;
    files.push({ path: file.path, language: file.language, references: refs });
  }
  return { name: n, files, total, truncated, parsed, ...(parseCapped ? { parseCapped: true as const } : {}) };
}

/** Occurrences of `name` at identifier boundaries, with the kind stored for the identifier there (else `text`). */
function scanFile(text: string, name: string, kinds: ReadonlyMap<number, UseKind> | undefined): Reference[] {
  const re = new RegExp(`(?<![\\p{L}\\p{N}_$])${name.replace(/\$/g, '\\$')}(?![\\p{L}\\p{N}_$])`, 'gu');
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const out: Reference[] = [];
  let line = 0;
  for (const m of text.matchAll(re)) {
    const at = m.index;
    while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= at) line++;
    const kind = kinds?.get(at) ?? 'text';
    const lineText = text.slice(lineStarts[line], (lineStarts[line + 1] ?? text.length + 1) - 1).trim();
    out.push({ line: line + 1, column: at - lineStarts[line]! + 1, kind, text: lineText.length > 200 ? `${lineText.slice(0, 199)}…` : lineText });
  }
  return out.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.line - b.line || a.column - b.column);
}
