/**
 * The naive oracle the chunker property tests check against: a text split on '\n', with byte
 * offsets computed by Buffer, sharing no code with the chunkers.
 */
import fc from 'fast-check';
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
