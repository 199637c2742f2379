/**
 * Reciprocal Rank Fusion (src/search/fusion.ts) and typed sub-queries (src/search/sub-queries.ts):
 * pure functions, checked by hand-computed cases, a golden ranking, and properties over random input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/core/errors.js';
import { fuseRrf, RRF_K } from '../../../src/search/fusion.js';
import { MAX_SUB_QUERIES, parseSubQueries } from '../../../src/search/sub-queries.js';

describe('fuseRrf', () => {
  it('sums weight / (k + rank) per list, best first (golden ranking)', () => {
    const fused = fuseRrf([
      { list: 'lexical', weight: 1, keys: ['a', 'b', 'c'] },
      { list: 'vector', weight: 1, keys: ['c', 'a', 'd'] },
      { list: 'symbol', weight: 0.5, keys: ['d'] },
    ]);
    expect(fused.map((f) => f.key)).toEqual(['a', 'c', 'd', 'b']);
    const a = fused[0]!;
    expect(a.score).toBeCloseTo(1 / 61 + 1 / 62, 15);
    expect(a.contributions).toEqual([
      { list: 'lexical', rank: 1, weight: 1, value: 1 / 61 },
      { list: 'vector', rank: 2, weight: 1, value: 1 / 62 },
    ]);
    expect(fused.find((f) => f.key === 'd')!.score).toBeCloseTo(1 / 63 + 0.5 / 61, 15);
    expect(RRF_K).toBe(60);
  });

  it('an item two lists agree on beats one list winner alone; k changes how much', () => {
    const lists = [
      { list: 'lexical', weight: 1, keys: ['solo', 'x1', 'x2', 'both'] },
      { list: 'vector', weight: 1, keys: ['y1', 'y2', 'y3', 'both'] },
    ];
    expect(fuseRrf(lists)[0]!.key).toBe('both');
    // with k = 0 the head of a list dominates: 1/1 beats 1/4 + 1/4
    expect(fuseRrf(lists, 0)[0]!.key).toBe('solo');
  });

  it('breaks ties by best rank, then first seen; skips zero weights and repeated keys', () => {
    const fused = fuseRrf([
      { list: 'lexical', weight: 1, keys: ['p', 'q', 'p'] },
      { list: 'vector', weight: 1, keys: ['q', 'p'] },
      { list: 'symbol', weight: 0, keys: ['z'] },
    ]);
    expect(fused.map((f) => f.key)).toEqual(['p', 'q']);
    expect(fused[0]!.contributions).toHaveLength(2);
    expect(() => fuseRrf([], -1)).toThrow(RangeError);
  });

  it('property: every trace sums to its score, scores never increase, each key once', () => {
    const listArb = fc.record({
      list: fc.constantFrom('lexical', 'vector', 'symbol'),
      weight: fc.double({ min: 0, max: 5, noNaN: true }),
      keys: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 10 }),
    });
    fc.assert(
      fc.property(fc.array(listArb, { maxLength: 5 }), fc.double({ min: 0, max: 200, noNaN: true }), (lists, k) => {
        const fused = fuseRrf(lists, k);
        expect(new Set(fused.map((f) => f.key)).size).toBe(fused.length);
        fused.forEach((f, i) => {
          expect(Math.abs(f.contributions.reduce((s, c) => s + c.value, 0) - f.score)).toBeLessThan(1e-12);
          if (i > 0) expect(f.score).toBeLessThanOrEqual(fused[i - 1]!.score);
          for (const c of f.contributions) expect(c.value).toBeCloseTo(c.weight / (k + c.rank), 12);
        });
      }),
    );
  });
});

describe('parseSubQueries', () => {
  it('routes lex:, vec: and hyde: lines; other lines are the plain query for every list', () => {
    const q = parseSubQueries('config loading\nlex: parseConfig loadConfig\nVEC:  where is the config file read\nhyde: function loadConfig(path) {\n  return JSON.parse(read(path));\n}');
    expect(q).toEqual({
      plain: 'config loading',
      lex: ['parseConfig loadConfig'],
      vec: ['where is the config file read'],
      hyde: ['function loadConfig(path) {\n  return JSON.parse(read(path));\n}'],
      typed: true,
    });
    expect(parseSubQueries('plain words only\nsecond line')).toEqual({ plain: 'plain words only\nsecond line', lex: [], vec: [], hyde: [], typed: false });
    // a word ending in a colon elsewhere is not a type
    expect(parseSubQueries('lexer: tokens').typed).toBe(false);
  });

  it('rejects empty typed lines and too many of one type with INVALID_ARGUMENT', () => {
    for (const bad of ['vec:', 'lex:   ', 'hyde:\n\n', Array.from({ length: MAX_SUB_QUERIES + 1 }, (_, i) => `lex: w${i}`).join('\n')]) {
      expect(() => parseSubQueries(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('property (fuzz): any input parses or fails with INVALID_ARGUMENT; typed text never keeps its prefix', () => {
    const line = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('lex:', 'vec:', 'hyde:', ' LEX : a', 'vec: b c', 'hyde: x', ''));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = lines.join('\n');
        try {
          const q = parseSubQueries(text);
          if (!q.typed) expect(q.plain).toBe(text);
          for (const s of [...q.lex, ...q.vec, ...q.hyde]) {
            expect(s.trim()).toBe(s);
            expect(s).not.toBe('');
          }
        } catch (err) {
          expect(isEngineError(err, 'INVALID_ARGUMENT')).toBe(true);
        }
      }),
    );
  });
});
