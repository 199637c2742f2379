import type { ChunkDraft, ChunkKind } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import { definedName, definitionPatterns } from './definitions.js';
import { LineTable } from './line-table.js';

export interface SplitOptions {
  readonly kind: ChunkKind;
  /** Per 0-based line, the name it defines (window chunker of a known language), if any. */
  readonly definitions?: readonly (string | undefined)[] | undefined;
  readonly symbol?: string | undefined;
  readonly container?: string | undefined;
  /** May a chunk end after 0-based line `l`? Markdown forbids ends inside code fences. */
  readonly canEndAfter?: ((l: number) => boolean) | undefined;
}

/** Fraction of the window after which a blank line is preferred as the chunk end. */
const SNAP_FROM = 0.6;

/**
 * Cuts lines [first, last] (0-based, inclusive) into windows of at most `windowLines` lines and
 * `maxBytes` bytes. A window prefers to end at a blank line in its last 40% (a cheap stand-in for
 * a block boundary); when it cannot, consecutive windows share `overlapLines` lines. Leading and
 * trailing blank lines are trimmed. A single line longer than `maxBytes` becomes several chunks
 * with the same line number.
 */
export function splitLines(table: LineTable, first: number, last: number, config: ChunkConfig, options: SplitOptions): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  const emit = (a: number, b: number): void => {
    while (a <= b && table.isBlank(a)) a++;
    while (b >= a && table.isBlank(b)) b--;
    if (a > b) return;
    const defines = options.definitions ? definedIn(options.definitions, a, b) : undefined;
    out.push({ kind: options.kind, startLine: a + 1, endLine: b + 1, ...table.byteRange(a, b), symbol: options.symbol ?? defines?.[0], container: options.container, ...(defines?.length ? { defines } : {}) });
  };
  let i = first;
  // after an overlapping window: the line the next one must reach (snapping never ends it earlier)
  let mustReach = first;
  while (i <= last) {
    while (i <= last && table.isBlank(i)) i++;
    if (i > last) break;
    if (table.lineBytes(i) > config.maxBytes) {
      out.push(...splitLongLine(table, i, config.maxBytes, options));
      i++;
      continue;
    }
    let end = i; // inclusive
    let bytes = table.lineBytes(i);
    while (end < last && end - i + 1 < config.windowLines && bytes + table.lineBytes(end + 1) <= config.maxBytes) {
      end++;
      bytes += table.lineBytes(end);
    }
    let snapped = end === last;
    if (!snapped) {
      const from = Math.max(i + Math.floor((end - i + 1) * SNAP_FROM), mustReach);
      for (let j = end; j >= from; j--) {
        if (table.isBlank(j) && (options.canEndAfter?.(j) ?? true)) {
          end = j;
          snapped = true;
          break;
        }
      }
    }
    if (!snapped && options.definitions) {
      // no blank line to end at: end just before a definition (and the comments above it)
      const from = Math.max(i + Math.floor((end - i + 1) * SNAP_FROM), mustReach);
      for (let j = end; j >= from; j--) {
        if (options.definitions[j + 1] === undefined) continue;
        let k = j;
        while (k > i && COMMENT_LINE_RE.test(table.line(k))) k--;
        if (k > i && k >= mustReach) {
          end = k;
          snapped = true;
        }
        break;
      }
    }
    if (!snapped && options.canEndAfter) {
      // find the nearest allowed end at or before `end`; if none, extend to the next allowed one,
      // as long as the chunk stays within maxBytes (the byte clamp is hard, the fence rule is not)
      let j = end;
      while (j > i && !options.canEndAfter(j)) j--;
      if (j > i && j >= mustReach) end = j;
      else {
        j = end;
        let extended = bytes;
        while (j < last && !options.canEndAfter(j) && extended + table.lineBytes(j + 1) <= config.maxBytes) {
          j++;
          extended += table.lineBytes(j);
        }
        if (j === last || options.canEndAfter(j)) end = j;
      }
      snapped = true;
    }
    emit(i, end);
    // the next window must reach the next non-blank line: one reaching only blank lines would be
    // trimmed to a subset of this one
    let reach = end + 1;
    while (reach <= last && table.isBlank(reach)) reach++;
    if (reach > last) break;
    i = snapped ? end + 1 : nextOverlapStart(table, i, end, reach, config);
    mustReach = reach;
  }
  return out;
}

/**
 * Where the window after [i, end] starts when it overlaps: `overlapLines` back, but late enough
 * that it still reaches line `reach` (the next non-blank line after `end`). Otherwise a window cut
 * short by maxBytes would be followed by windows that repeat a subset of it, one line shorter each
 * time, or by one that, its blank lines trimmed, repeats the end of it.
 */
function nextOverlapStart(table: LineTable, i: number, end: number, reach: number, config: ChunkConfig): number {
  let next = Math.max(i + 1, end + 1 - config.overlapLines);
  let bytes = table.byteStarts[reach + 1]! - table.byteStarts[next]!;
  while (next <= end && (bytes > config.maxBytes || reach + 1 - next > config.windowLines)) {
    bytes -= table.lineBytes(next);
    next++;
  }
  return next;
}

function splitLongLine(table: LineTable, l: number, maxBytes: number, options: SplitOptions): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  const line = table.line(l);
  const base = table.byteStarts[l]!;
  let charPos = 0;
  let bytePos = 0;
  while (charPos < line.length) {
    let take = Math.min(line.length - charPos, maxBytes);
    let piece = line.slice(charPos, charPos + take);
    while (Buffer.byteLength(piece, 'utf8') > maxBytes) {
      take = Math.floor(take * 0.9);
      piece = line.slice(charPos, charPos + take);
    }
    // do not split a surrogate pair
    const last = piece.charCodeAt(piece.length - 1);
    if (take > 1 && last >= 0xd800 && last <= 0xdbff) {
      take--;
      piece = line.slice(charPos, charPos + take);
    }
    const pieceBytes = Buffer.byteLength(piece, 'utf8');
    out.push({ kind: options.kind, startLine: l + 1, endLine: l + 1, startByte: base + bytePos, endByte: base + bytePos + pieceBytes, symbol: options.symbol, container: options.container });
    charPos += take;
    bytePos += pieceBytes;
  }
  return out;
}

/** Lines that belong to the definition below them: comments, doc comments, decorators. */
const COMMENT_LINE_RE = /^\s*(?:\/\/|\/\*|\*|#|@|--|;;|"""|''')/;

function definedIn(definitions: readonly (string | undefined)[], a: number, b: number): string[] {
  const out: string[] = [];
  for (let l = a; l <= b; l++) {
    const name = definitions[l];
    if (name !== undefined && !out.includes(name)) out.push(name);
  }
  return out;
}

/** Per line, the name it defines, for languages with definition patterns. */
export function lineDefinitions(table: LineTable, language: string): (string | undefined)[] | undefined {
  const patterns = definitionPatterns(language);
  if (!patterns) return undefined;
  const out: (string | undefined)[] = new Array<string | undefined>(table.count);
  for (let l = 0; l < table.count; l++) out[l] = definedName(table.line(l), patterns);
  return out;
}

/**
 * The fallback chunker for every text file. For languages with definition patterns, windows
 * prefer to end before a definition, and each chunk records the names it defines (its symbol is
 * the first of them).
 */
export function chunkWindows(text: string, config: ChunkConfig, language = 'text'): ChunkDraft[] {
  const table = new LineTable(text);
  if (table.count === 0) return [];
  return splitLines(table, 0, table.count - 1, config, { kind: 'window', definitions: lineDefinitions(table, language) });
}
