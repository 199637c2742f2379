/**
 * The naive oracle the chunker property tests check against: a text split on '\n', with byte
 * offsets computed by Buffer, sharing no code with the chunkers.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { ChunkDraft } from '../../src/core/chunk.js';
import type { ChunkConfig } from '../../src/config/schema.js';

/** The oracle's view of a text: lines with their terminators, byte offsets from Buffer. */
export interface Oracle {
  readonly buf: Buffer;
  /** Line texts including their terminator. */
  readonly lines: string[];
  /** Byte offset where each 0-based line starts. */
  readonly starts: number[];
}

export function oracle(text: string): Oracle {
  const lines = text === '' ? [] : text.split(/(?<=\n)/);
  const starts: number[] = [];
  let at = 0;
  for (const l of lines) {
    starts.push(at);
    at += Buffer.byteLength(l);
  }
  return { buf: Buffer.from(text), lines, starts };
}

export const isBlank = (line: string): boolean => line.trim() === '';
export const stripEol = (s: string): string => s.replace(/\r?\n$/, '');

/** Is `c` one piece of a line too long for one chunk? */
export function isLongLinePiece(o: Oracle, c: ChunkDraft, config: ChunkConfig): boolean {
  return c.startLine === c.endLine && Buffer.byteLength(o.lines[c.startLine - 1]!) > config.maxBytes;
}

/** Chunk configs in the valid range, with maxBytes up to `maxBytes`. */
export function configArb(maxBytes: number): fc.Arbitrary<ChunkConfig> {
  return fc
    .tuple(fc.integer({ min: 10, max: 60 }), fc.integer({ min: 512, max: maxBytes }))
    .chain(([windowLines, bytes]) => fc.integer({ min: 0, max: Math.floor(windowLines / 2) }).map((overlapLines) => ({ windowLines, overlapLines, maxBytes: bytes })));
}

/**
 * What every chunker promises, checked against the oracle: chunks inside the file and within
 * maxBytes; a chunk is exactly its lines (no blank first or last line) or a piece of one long
 * line, never splitting a character; the pieces of a long line are contiguous and cover it;
 * chunks are sorted; every non-blank line is covered. Overlap rules differ per chunker and are
 * left to the caller.
 */
export function checkChunkGeometry(text: string, chunks: readonly ChunkDraft[], config: ChunkConfig): Oracle {
  const o = oracle(text);
  const pieces = new Map<number, ChunkDraft[]>();
  for (const c of chunks) {
    expect(c.startLine).toBeGreaterThanOrEqual(1);
    expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
    expect(c.endLine).toBeLessThanOrEqual(o.lines.length);
    expect(c.startByte).toBeGreaterThanOrEqual(0);
    expect(c.endByte).toBeGreaterThan(c.startByte);
    expect(c.endByte).toBeLessThanOrEqual(o.buf.length);
    expect(c.endByte - c.startByte).toBeLessThanOrEqual(config.maxBytes);
    const slice = o.buf.subarray(c.startByte, c.endByte).toString('utf8');
    if (isLongLinePiece(o, c, config)) {
      const line = o.lines[c.startLine - 1]!;
      expect(c.startByte).toBeGreaterThanOrEqual(o.starts[c.startLine - 1]!);
      expect(c.endByte).toBeLessThanOrEqual(o.starts[c.startLine - 1]! + Buffer.byteLength(stripEol(line)));
      // never cuts a character: the slice round-trips
      expect(Buffer.from(slice).equals(o.buf.subarray(c.startByte, c.endByte))).toBe(true);
      pieces.set(c.startLine, [...(pieces.get(c.startLine) ?? []), c]);
    } else {
      expect(slice).toBe(stripEol(o.lines.slice(c.startLine - 1, c.endLine).join('')));
      expect(isBlank(o.lines[c.startLine - 1]!)).toBe(false);
      expect(isBlank(o.lines[c.endLine - 1]!)).toBe(false);
    }
  }
  for (const [line, ps] of pieces) {
    expect(ps[0]!.startByte).toBe(o.starts[line - 1]);
    expect(ps[ps.length - 1]!.endByte).toBe(o.starts[line - 1]! + Buffer.byteLength(stripEol(o.lines[line - 1]!)));
    for (let i = 1; i < ps.length; i++) expect(ps[i]!.startByte).toBe(ps[i - 1]!.endByte);
  }
  for (let i = 1; i < chunks.length; i++) {
    expect(chunks[i]!.startByte).toBeGreaterThan(chunks[i - 1]!.startByte);
    expect(chunks[i]!.startLine).toBeGreaterThanOrEqual(chunks[i - 1]!.startLine);
  }
  o.lines.forEach((line, l) => {
    if (!isBlank(line)) expect(chunks.some((c) => c.startLine <= l + 1 && l + 1 <= c.endLine), `line ${l + 1} is covered`).toBe(true);
  });
  return o;
}
