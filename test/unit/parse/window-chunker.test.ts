import { describe, expect, it } from 'vitest';
import type { ChunkDraft } from '../../../src/core/chunk.js';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { createChunkers } from '../../../src/parse/chunker.js';
import { INDEX_FEATURE_VERSION } from '../../../src/indexer/feature-version.js';
import { LineTable } from '../../../src/parse/line-table.js';
import { chunkWindows } from '../../../src/parse/window-chunker.js';

const CONFIG: ChunkConfig = { windowLines: 10, overlapLines: 2, maxBytes: 512 };
const lines = (n: number, make: (i: number) => string = (i) => `line ${i + 1}`): string =>
  Array.from({ length: n }, (_, i) => make(i)).join('\n') + '\n';
const ranges = (chunks: ChunkDraft[]): string[] => chunks.map((c) => `${c.startLine}-${c.endLine}`);
const slice = (text: string, c: ChunkDraft): string => Buffer.from(text).subarray(c.startByte, c.endByte).toString('utf8');

describe('LineTable', () => {
  it('counts lines with and without a trailing newline', () => {
    expect(new LineTable('a\nb\n').count).toBe(2);
    expect(new LineTable('a\nb').count).toBe(2);
    expect(new LineTable('\n').count).toBe(1);
    expect(new LineTable('').count).toBe(1);
  });

  it('keeps UTF-8 byte offsets for multi-byte text and strips CRLF from line text', () => {
    const t = new LineTable('é\r\n日本\n😀');
    expect(t.byteStarts).toEqual([0, 4, 11, 15]);
    expect([t.line(0), t.line(1), t.line(2)]).toEqual(['é', '日本', '😀']);
    expect(t.byteRange(0, 1)).toEqual({ startByte: 0, endByte: 10 });
    expect(t.byteRange(2, 2)).toEqual({ startByte: 11, endByte: 15 });
    expect(t.isBlank(0)).toBe(false);
    expect(new LineTable(' \t\r\n').isBlank(0)).toBe(true);
  });
});

describe('chunkWindows', () => {
  it('returns nothing for empty or blank-only text', () => {
    expect(chunkWindows('', CONFIG)).toEqual([]);
    expect(chunkWindows('\n\n   \n\t\n', CONFIG)).toEqual([]);
  });

  it('returns one window for a small file, trimmed of leading and trailing blank lines', () => {
    const text = '\n\nfirst\nsecond\n\n';
    const chunks = chunkWindows(text, CONFIG);
    expect(chunks).toEqual([{ kind: 'window', startLine: 3, endLine: 4, startByte: 2, endByte: 14, symbol: undefined, container: undefined }]);
    expect(slice(text, chunks[0]!)).toBe('first\nsecond');
  });

  it('overlaps dense windows by overlapLines', () => {
    expect(ranges(chunkWindows(lines(25), CONFIG))).toEqual(['1-10', '9-18', '17-25']);
  });

  it('snaps a window end to a blank line in its last 40% and then does not overlap', () => {
    const text = lines(25, (i) => (i === 7 ? '' : `code ${i + 1}`));
    expect(ranges(chunkWindows(text, CONFIG))).toEqual(['1-7', '9-18', '17-25']);
  });

  it('does not snap to a blank line early in the window', () => {
    const text = lines(25, (i) => (i === 2 ? '' : `code ${i + 1}`));
    expect(ranges(chunkWindows(text, CONFIG))).toEqual(['1-10', '9-18', '17-25']);
  });

  it('cuts windows at maxBytes before windowLines', () => {
    const text = lines(12, (i) => `${i}`.padEnd(99, '.'));
    const chunks = chunkWindows(text, CONFIG);
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(512);
    expect(ranges(chunks)).toEqual(['1-5', '4-8', '7-11', '10-12']);
  });

  it('does not repeat a subset of a window cut short by a big next line (regression)', () => {
    // 5 short lines, then a 506-byte line: the first window cannot take it; the next window used
    // to start overlapLines back and stop at the same place (2-5 after 1-5)
    const text = ['a', 'b', 'c', 'd', 'e', 'x'.repeat(505), 'f'].join('\n') + '\n';
    const chunks = chunkWindows(text, { windowLines: 10, overlapLines: 4, maxBytes: 512 });
    expect(ranges(chunks)).toEqual(['1-5', '3-6', '4-7']);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.endByte).toBeGreaterThan(chunks[i - 1]!.endByte);
  });

  it('splits a line longer than maxBytes into pieces that share its line number', () => {
    const long = 'abc '.repeat(300);
    const text = `before\n${long}\nafter\n`;
    const chunks = chunkWindows(text, CONFIG);
    expect(ranges(chunks)).toEqual(['1-1', '2-2', '2-2', '2-2', '3-3']);
    expect(chunks.slice(1, 4).map((c) => slice(text, c)).join('')).toBe(long);
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(512);
  });

  it('never cuts a multi-byte character or a surrogate pair in a long line', () => {
    const long = '😀é日'.repeat(200);
    const chunks = chunkWindows(long, CONFIG);
    expect(chunks.length).toBeGreaterThan(1);
    const pieces = chunks.map((c) => slice(long, c));
    for (const p of pieces) expect(p).not.toMatch(/\uFFFD/);
    expect(pieces.join('')).toBe(long);
  });

  it('measures CRLF files in bytes and leaves the final CRLF out of the range', () => {
    const text = 'one\r\ntwo\r\n\r\nthree\r\n';
    const chunks = chunkWindows(text, CONFIG);
    expect(chunks).toHaveLength(1);
    expect(slice(text, chunks[0]!)).toBe('one\r\ntwo\r\n\r\nthree');
  });

  it('is deterministic', () => {
    const text = lines(200, (i) => (i % 13 === 0 ? '' : `statement_${i}();`));
    expect(chunkWindows(text, CONFIG)).toEqual(chunkWindows(text, CONFIG));
  });
});

describe('createChunkers', () => {
  it('picks the markdown chunker for markdown and the window chunker for everything else', () => {
    const chunkers = createChunkers(CONFIG);
    const md = { path: 'a.md', language: 'markdown', contentType: 'docs' as const, text: '# T\n\nbody\n' };
    expect(chunkers.forFile(md).name).toBe('markdown');
    expect(chunkers.forFile(md).chunk(md)[0]).toMatchObject({ kind: 'section', symbol: 'T' });
    const ts = { path: 'a.ts', language: 'typescript', contentType: 'code' as const, text: '# not a heading\n' };
    expect(chunkers.forFile(ts).name).toBe('window');
    expect(chunkers.forFile(ts).chunk(ts)[0]).toMatchObject({ kind: 'window', symbol: undefined });
  });

  it('INDEX_FEATURE_VERSION is a positive integer (bump it whenever a golden changes)', () => {
    expect(Number.isInteger(INDEX_FEATURE_VERSION) && INDEX_FEATURE_VERSION > 0).toBe(true);
  });
});
