/** retrieve_context's `max_chunks` and `max_total_bytes` (../shared/seeds §17.4.1) over a packed list. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capPieces } from '../../../src/tools/file-tools.js';

const piece = (name: string, bytes: number): { name: string; text: string } => ({ name, text: 'x'.repeat(bytes) });

describe('capPieces', () => {
  it('keeps the max_chunks best-ranked pieces in display order', () => {
    const pieces = [piece('a', 1), piece('b', 1), piece('c', 1), piece('d', 1)];
    // display order a b c d; ranks say c is best, then a, then d, then b
    const { kept, dropped } = capPieces(pieces, [1, 3, 0, 2], 2, 1e6, 0);
    expect(kept.map((p) => p.name)).toEqual(['a', 'c']);
    expect(dropped).toBe(2);
  });

  it('drops the worst-ranked pieces until the text fits max_total_bytes, counting the current file', () => {
    const pieces = [piece('a', 400), piece('b', 300), piece('c', 200)];
    expect(capPieces(pieces, [0, 1, 2], 8, 1000, 0).kept.map((p) => p.name)).toEqual(['a', 'b', 'c']);
    expect(capPieces(pieces, [0, 1, 2], 8, 1000, 200).kept.map((p) => p.name)).toEqual(['a', 'b']);
    expect(capPieces(pieces, [2, 1, 0], 8, 600, 0).kept.map((p) => p.name)).toEqual(['b', 'c']);
    expect(capPieces(pieces, [2, 1, 0], 8, 400, 0).kept.map((p) => p.name)).toEqual(['c']);
  });

  it('property: at most max_chunks, within the bytes, kept ⊆ input in order, best ranks kept', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(500), { maxLength: 30 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 5000 }), (sizes, maxChunks, maxBytes) => {
        const pieces = sizes.map((n, i) => piece(String(i), n));
        const ranks = sizes.map((_, i) => (i * 7) % sizes.length);
        const { kept, dropped } = capPieces(pieces, ranks, maxChunks, maxBytes, 0);
        expect(kept.length + dropped).toBe(pieces.length);
        expect(kept.length).toBeLessThanOrEqual(maxChunks);
        expect(kept.reduce((n, p) => n + p.text.length, 0)).toBeLessThanOrEqual(maxBytes);
        const idx = kept.map((p) => Number(p.name));
        expect([...idx].sort((x, y) => x - y)).toEqual(idx);
        // nothing dropped ranks better than the worst kept piece
        const worstKept = Math.max(-1, ...idx.map((i) => ranks[i]!));
        for (let i = 0; i < pieces.length; i++) if (!idx.includes(i) && ranks[i]! < worstKept) expect.fail(`piece ${i} (rank ${ranks[i]}) dropped before a worse one`);
      }),
    );
  });
});
