import type { ChunkDraft, ChunkKind } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import { LineTable } from './line-table.js';

export interface SplitOptions {
  readonly kind: ChunkKind;
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
    out.push({ kind: options.kind, startLine: a + 1, endLine: b + 1, ...table.byteRange(a, b), symbol: options.symbol, container: options.container });
  };
  let i = first;
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
      const from = i + Math.floor((end - i + 1) * SNAP_FROM);
      for (let j = end; j >= from; j--) {
        if (table.isBlank(j) && (options.canEndAfter?.(j) ?? true)) {
          end = j;
          snapped = true;
          break;
        }
      }
    }
    if (!snapped && options.canEndAfter) {
      // find the nearest allowed end at or before `end`; if none, extend to the next allowed one
      let j = end;
      while (j > i && !options.canEndAfter(j)) j--;
      if (j > i) end = j;
      else {
        j = end;
        while (j < last && !options.canEndAfter(j)) j++;
        end = j;
      }
      snapped = true;
    }
    emit(i, end);
    if (end >= last) break;
    i = snapped ? end + 1 : Math.max(i + 1, end + 1 - config.overlapLines);
  }
  return out;
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

/** The fallback chunker for every text file. */
export function chunkWindows(text: string, config: ChunkConfig): ChunkDraft[] {
  const table = new LineTable(text);
  if (table.count === 0) return [];
  return splitLines(table, 0, table.count - 1, config, { kind: 'window' });
}
