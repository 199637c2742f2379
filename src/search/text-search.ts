import { isAscii } from 'node:buffer';
import { EngineError } from '../core/errors.js';
import type { IndexStore } from '../store/index-store.js';
import { pathMatcher } from './filters.js';
import { compileTextPattern, type TextPattern } from './text-pattern.js';

/**
 * A regex scans whole files and cannot be interrupted mid-file, so files larger than this on
 * disk are skipped in regex mode (counted in `filesSkipped`): it caps what one pathological
 * pattern (polynomial backtracking) can cost per file. Literal queries scan every file.
 */
export const REGEX_MAX_FILE_BYTES = 1024 * 1024;
/** Longest `text` of a match, in UTF-16 units: a longer line is cut around the match, marked with `…`. */
export const MAX_MATCH_TEXT_CHARS = 300;
/** How much of a cut line is kept before the match. */
const CHARS_BEFORE_MATCH = 100;
const DEFAULT_LIMIT = 30;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Bodies read per statement: enough to amortise the statement, little enough to bound memory. */
const FIRST_BATCH_FILES = 16;
const MAX_BATCH_FILES = 256;
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
/** Matches crossing a line end re-checked per file before the rest of the file is scanned line by line (see `scanLines`). */
const MAX_VERIFIES = 8;
/** A scan yields to the event loop this often, so that `signal` can be seen and other calls run. */
const YIELD_EVERY_MS = 25;

export interface TextSearchOptions {
  /**
   * Treat the query as a JavaScript regular expression instead of a literal. Default false. It
   * runs with the `m` flag (and `u` unless only the legacy syntax accepts it, e.g. `\:`) against
   * one line at a time: a match never spans lines, lookarounds do not see the next line, `^`/`$`
   * anchor at line ends (CRLF included). JavaScript semantics: `\w`, `\d` and `\b` are ASCII.
   * Inline flags such as `(?i)` are refused (INVALID_ARGUMENT): use `caseSensitive`.
   */
  readonly regex?: boolean | undefined;
  /**
   * true: exact case; false: ignore case. Default: smart case (as `rg --smart-case`): ignore case
   * unless the query spells an uppercase letter (in a regex, escapes such as `\W` don't count).
   * Ignoring case, a literal folds ASCII letters only to ASCII (`k` never matches the Kelvin sign);
   * a regex uses Unicode case folding.
   */
  readonly caseSensitive?: boolean | undefined;
  /** Only files matching these globs (`src/**\/*.ts`, `*.md`) or directory prefixes (`src/store`). */
  readonly paths?: string | readonly string[] | undefined;
  /** Matching lines to return. Range 1–1000; default 30. */
  readonly limit?: number | undefined;
  /** Stop after this long and return what was found (`timedOut`). Range 1–60,000 ms; default 10,000. Checked between files. */
  readonly timeoutMs?: number | undefined;
  /** Cancels the scan (checked between batches of files); the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/** One matching line. */
export interface TextMatch {
  readonly path: string;
  /** 1-based line number. */
  readonly line: number;
  /** 1-based column of the first match in the line, in UTF-16 code units (as editors count). */
  readonly column: number;
  /** The line without its terminator; over 300 characters it is cut around the match, and a cut end shows `…`. */
  readonly text: string;
}

export interface TextSearchResult {
  readonly query: string;
  /** Matching lines, by path then line; one entry per line (its first match). */
  readonly matches: readonly TextMatch[];
  /** Whether the search ran case-sensitively (the smart-case decision when not given). */
  readonly caseSensitive: boolean;
  /** Files with at least one match, among the files scanned. */
  readonly filesWithMatches: number;
  /** Files searched before the scan stopped (all files after the path filter, unless truncated or timed out). */
  readonly filesScanned: number;
  /** Files not searched because they exceed the regex size cap (`REGEX_MAX_FILE_BYTES`, 1 MiB on disk). */
  readonly filesSkipped: number;
  /** True when more matching lines existed than `limit` (the scan stopped there). */
  readonly truncated: boolean;
  /** True when `timeoutMs` ran out before every file was scanned. */
  readonly timedOut: boolean;
  readonly tookMs: number;
}

interface Hit {
  readonly line: number;
  readonly column: number;
  readonly text: string;
}

const intOption = (name: string, value: number | undefined, min: number, max: number, fallback: number): number => {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw new EngineError('INVALID_ARGUMENT', { name, reason: `must be an integer from ${min} to ${max}` });
  return v;
};

/** Cuts a long line to `MAX_MATCH_TEXT_CHARS` around `index` (UTF-16) without splitting a surrogate pair. */
export function clipLine(text: string, index: number): string {
  if (text.length <= MAX_MATCH_TEXT_CHARS) return text;
  let start = Math.max(0, Math.min(index - CHARS_BEFORE_MATCH, text.length - MAX_MATCH_TEXT_CHARS));
  let end = start + MAX_MATCH_TEXT_CHARS;
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start++;
  if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end--;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

const trimCr = (s: string): string => (s.endsWith('\r') ? s.slice(0, -1) : s);

/**
 * The scan loop shared by every strategy. `find(pos)` gives the next match at or after `pos`
 * (start, end) in a haystack of `length` units; `nextNl` finds line ends; `render` builds a hit.
 * Lines are counted lazily up to each match; after a hit the scan resumes at the next line, so a
 * line is reported once. A match that runs past its line's end (a regex crossing `\n`) is
 * re-checked on the line alone by `verify`; after `MAX_VERIFIES` of those the loop hands back
 * where it stopped (`resume`), because each of them may have scanned far ahead (`a[^;]*b` in a
 * file without `;`), which repeated on every line would be quadratic.
 */
function scanLines(
  length: number,
  find: (pos: number) => { start: number; end: number } | undefined,
  nextNl: (pos: number) => number,
  render: (line: number, lineStart: number, at: number, lineEnd: number) => Hit,
  verify: ((lineStart: number, lineEnd: number) => number) | undefined,
  max: number,
): { hits: Hit[]; resume?: { line: number; pos: number } } {
  const hits: Hit[] = [];
  let verifies = 0;
  let line = 1;
  let lineStart = 0;
  let nl = nextNl(0);
  let pos = 0;
  while (hits.length < max) {
    const m = find(pos);
    if (!m) break;
    while (nl !== -1 && nl < m.start) {
      line++;
      lineStart = nl + 1;
      nl = nextNl(lineStart);
    }
    if (nl === -1 && lineStart >= length) break; // past a final newline: no line there
    const lineEnd = nl === -1 ? length : nl;
    const spans = m.end > lineEnd && verify !== undefined;
    if (spans && ++verifies > MAX_VERIFIES) return { hits, resume: { line, pos: lineStart } };
    const at = spans ? verify(lineStart, lineEnd) : m.start;
    if (at !== -1) hits.push(render(line, lineStart, at, lineEnd));
    if (nl === -1) break;
    pos = nl + 1;
  }
  return { hits };
}

/** Hits at byte offsets of `buf` (found in the buffer itself, or in its latin1 decoding, which has the same offsets). */
function byteRender(buf: Buffer) {
  return (line: number, lineStart: number, at: number, lineEnd: number): Hit => {
    const text = trimCr(buf.toString('utf8', lineStart, lineEnd));
    const index = buf.toString('utf8', lineStart, at).length;
    return { line, column: index + 1, text: clipLine(text, index) };
  };
}

/** Hits in decoded text; `normalized` when the line-ending \r were already removed. */
function stringRender(text: string, normalized: boolean) {
  return (line: number, lineStart: number, at: number, lineEnd: number): Hit => {
    const content = text.slice(lineStart, lineEnd);
    return { line, column: at - lineStart + 1, text: clipLine(normalized ? content : trimCr(content), at - lineStart) };
  };
}

function regexFind(re: RegExp, hay: string) {
  return (pos: number): { start: number; end: number } | undefined => {
    re.lastIndex = pos;
    const m = re.exec(hay);
    return m ? { start: m.index, end: m.index + m[0].length } : undefined;
  };
}

/** A regex line by line, from `start` (numbered `firstLine`): for lookarounds, which would otherwise see the neighbouring lines. */
function scanEachLine(text: string, re: RegExp, max: number, start = 0, firstLine = 1): Hit[] {
  const hits: Hit[] = [];
  const lines = text.slice(start).split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (let i = 0; i < lines.length && hits.length < max; i++) {
    const m = re.exec(lines[i]!);
    if (m) hits.push({ line: firstLine + i, column: m.index + 1, text: clipLine(lines[i]!, m.index) });
  }
  return hits;
}

function regexScan(buf: Buffer, p: TextPattern, max: number): Hit[] {
  if (p.required?.kind === 'bytes' && !buf.includes(p.required.bytes)) return [];
  const ascii = isAscii(buf);
  const latin1 = p.required?.kind === 'ascii-ci' ? buf.toString('latin1') : undefined;
  if (p.required?.kind === 'ascii-ci' && !p.required.re.test(latin1!)) return [];
  // ASCII needs no UTF-8 decoding. The \r ending a line is dropped so that `$` ends CRLF lines
  // (columns are unchanged); a final one becomes \n, which keeps a last line of just "\r".
  let text = ascii ? (latin1 ?? buf.toString('latin1')) : buf.toString('utf8');
  if (text.includes('\r')) text = text.replace(/\r(?=\n)/g, '').replace(/\r$/, '\n');
  if (p.perLine) return scanEachLine(text, p.line, max);
  const verify = (lineStart: number, lineEnd: number): number => {
    const m = p.line.exec(text.slice(lineStart, lineEnd));
    return m ? lineStart + m.index : -1;
  };
  const { hits, resume } = scanLines(text.length, regexFind(p.global, text), (pos) => text.indexOf('\n', pos), stringRender(text, true), verify, max);
  return resume ? [...hits, ...scanEachLine(text, p.line, max - hits.length, resume.pos, resume.line)] : hits;
}

/** Matching lines of one file's stored UTF-8 bytes, at most `max`, choosing the cheapest exact strategy. */
export function scanBuffer(buf: Buffer, p: TextPattern, max: number): Hit[] {
  const nextNl = (pos: number): number => buf.indexOf(10, pos);
  if (p.needle) {
    const needle = p.needle;
    const find = (pos: number): { start: number; end: number } | undefined => {
      const at = buf.indexOf(needle, pos);
      return at === -1 ? undefined : { start: at, end: at + needle.length };
    };
    return scanLines(buf.length, find, nextNl, byteRender(buf), undefined, max).hits;
  }
  if (p.bytewise) {
    const hay = buf.toString('latin1');
    return scanLines(buf.length, regexFind(p.global, hay), nextNl, byteRender(buf), undefined, max).hits;
  }
  if (!p.regex) {
    const text = buf.toString('utf8');
    return scanLines(text.length, regexFind(p.global, text), (pos) => text.indexOf('\n', pos), stringRender(text, false), undefined, max).hits;
  }
  return regexScan(buf, p, max);
}

type ScanFile = [path: string, hash: string, size: number];

/**
 * Files in path order, in batches whose bodies are read with one statement each. Batches start
 * small (a common query stops within the first files) and double up to `MAX_BATCH_FILES`.
 */
function* batches(files: readonly ScanFile[]): Generator<ScanFile[]> {
  let batch: ScanFile[] = [];
  let bytes = 0;
  let size = FIRST_BATCH_FILES;
  for (const f of files) {
    batch.push(f);
    bytes += f[2];
    if (batch.length >= size || bytes >= MAX_BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
      size = Math.min(size * 2, MAX_BATCH_FILES);
    }
  }
  if (batch.length > 0) yield batch;
}

const pathList = (v: string | readonly string[] | undefined): string[] =>
  (v === undefined ? [] : typeof v === 'string' ? [v] : [...v]).map((s) => String(s).trim()).filter((s) => s !== '');

/** What search_text learned about stored bodies, kept by the engine between calls (a documented cache). */
export interface TextScanCache {
  /**
   * Content hashes whose body has no NUL byte, learned while scanning them. Only these may be
   * prefiltered in SQL (GLOB, LIKE), which stops reading at a NUL. A hash names immutable content, so
   * an entry never goes stale; the set is cleared when it passes `MAX_CACHED_HASHES`.
   */
  readonly nulFree: Set<string>;
}

export const createTextScanCache = (): TextScanCache => ({ nulFree: new Set() });
const MAX_CACHED_HASHES = 1_000_000;

/**
 * Bodies of one batch. Hashes known to be NUL-free are prefiltered in SQLite when the pattern
 * has a `prefilter`: only bodies containing it are copied out, the others are ruled out. The rest
 * are read whole and become `fresh` (scanned in JS, then learned into the cache).
 */
function readBatch(store: IndexStore, hashes: readonly string[], p: TextPattern, cache: TextScanCache | undefined): { bodies: Map<string, Buffer>; fresh: Set<string> } {
  const pre = p.prefilter;
  const known = pre && cache ? hashes.filter((h) => cache.nulFree.has(h)) : [];
  const fresh = known.length === 0 ? hashes : hashes.filter((h) => !cache!.nulFree.has(h));
  return store.read(() => {
    const bodies = fresh.length > 0 ? store.content.bodies(fresh) : new Map<string, Buffer>();
    if (known.length > 0) for (const [h, b] of store.content.bodiesContaining(known, pre!.text, pre!.ignoreAsciiCase)) bodies.set(h, b);
    return { bodies, fresh: new Set(fresh) };
  });
}

interface ScanState {
  readonly matches: TextMatch[];
  filesWithMatches: number;
  filesScanned: number;
  filesSkipped: number;
  timedOut: boolean;
}

/** Scans one batch in path order into `state`; false once the limit or the deadline is reached. */
function scanBatch(store: IndexStore, batch: readonly ScanFile[], p: TextPattern, limit: number, deadline: number, cache: TextScanCache | undefined, state: ScanState): boolean {
  // a regex cannot be interrupted inside a file: the cap is on the size on disk, known before reading
  const files = p.regex ? batch.filter((f) => f[2] <= REGEX_MAX_FILE_BYTES) : batch;
  state.filesSkipped += batch.length - files.length;
  const { bodies, fresh } = readBatch(store, [...new Set(files.map((f) => f[1]))], p, cache);
  for (const [path, hash] of files) {
    if (performance.now() > deadline) {
      state.timedOut = true;
      return false;
    }
    const buf = bodies.get(hash);
    if (!buf) {
      // ruled out by the store (no match), or deleted by an index pass since the listing
      if (!fresh.has(hash)) state.filesScanned++;
      continue;
    }
    state.filesScanned++;
    const hits = scanBuffer(buf, p, limit + 1 - state.matches.length);
    if (cache && fresh.has(hash) && buf.indexOf(0) === -1) {
      if (cache.nulFree.size >= MAX_CACHED_HASHES) cache.nulFree.clear();
      cache.nulFree.add(hash);
    }
    if (hits.length > 0) state.filesWithMatches++;
    for (const h of hits) state.matches.push({ path, ...h });
    if (state.matches.length > limit) return false;
  }
  return true;
}

/**
 * Exact or regex search over the stored text of the indexed files, like ripgrep: one match per
 * matching line, in path then line order, stopping after `limit + 1` lines. Reads file bodies
 * from the store in batches and yields to the event loop between them; a concurrent index pass
 * may be seen part-way (a file deleted meanwhile is skipped). `cache` (the engine's) lets later
 * calls skip files in SQLite without copying them out.
 */
export async function searchText(store: IndexStore, query: string, options: TextSearchOptions = {}, cache?: TextScanCache): Promise<TextSearchResult> {
  const started = performance.now();
  const limit = intOption('limit', options.limit, 1, 1000, DEFAULT_LIMIT);
  const timeoutMs = intOption('timeoutMs', options.timeoutMs, 1, 60_000, DEFAULT_TIMEOUT_MS);
  const pattern = compileTextPattern(query, { regex: options.regex ?? false, caseSensitive: options.caseSensitive });
  options.signal?.throwIfAborted();
  const match = pathMatcher(pathList(options.paths));
  const files = store.read(() => store.files.pathsWithHashes()).filter((f) => !match || match(f[0]));
  const state: ScanState = { matches: [], filesWithMatches: 0, filesScanned: 0, filesSkipped: 0, timedOut: false };
  let lastYield = performance.now();
  for (const batch of batches(files)) {
    if (!scanBatch(store, batch, pattern, limit, started + timeoutMs, cache, state)) break;
    if (performance.now() - lastYield >= YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      options.signal?.throwIfAborted();
      lastYield = performance.now();
    }
  }
  return textSearchResult(query, pattern, limit, started, state);
}

/** What a text scan found, as the result: the first `limit` matches, the counts, the time since `started`. */
export function textSearchResult<M>(
  query: string,
  pattern: TextPattern,
  limit: number,
  started: number,
  scan: { readonly matches: readonly M[]; readonly filesWithMatches: number; readonly filesScanned: number; readonly filesSkipped: number; readonly timedOut: boolean },
) {
  return {
    query,
    matches: scan.matches.slice(0, limit),
    caseSensitive: pattern.caseSensitive,
    filesWithMatches: scan.filesWithMatches,
    filesScanned: scan.filesScanned,
    filesSkipped: scan.filesSkipped,
    truncated: scan.matches.length > limit,
    timedOut: scan.timedOut,
    tookMs: Math.round((performance.now() - started) * 100) / 100,
  };
}
