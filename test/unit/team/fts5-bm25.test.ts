/**
 * The team index's re-implementation of FTS5's bm25() (src/team/fts5-bm25.ts) against SQLite's
 * FTS5 itself, the oracle: random rows and random scry-shaped MATCH expressions, same candidate
 * rows and the same scores to 1e-9 relative.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/database.js';
import { fts5Bm25, parseFtsExpression, phraseCounts, type ScoredRow } from '../../../src/team/fts5-bm25.js';

describe('parseFtsExpression', () => {
  it('binds AND tighter than OR, keeps repeated phrases, unescapes ""', () => {
    const p = parseFtsExpression('"a b" OR "c" AND ("d" OR "e""f") OR "a b"');
    expect(p.phrases).toEqual(['a b', 'c', 'd', 'e"f', 'a b']);
    expect(p.root).toEqual({
      kind: 'or',
      children: [
        { kind: 'phrase', index: 0 },
        { kind: 'and', children: [{ kind: 'phrase', index: 1 }, { kind: 'or', children: [{ kind: 'phrase', index: 2 }, { kind: 'phrase', index: 3 }] }] },
        { kind: 'phrase', index: 4 },
      ],
    });
  });

  it('refuses what scry never builds', () => {
    for (const bad of ['a', '"a" NOT "b"', '"a', '("a"', '"a" OR', '"a" NEAR "b"']) expect(() => parseFtsExpression(bad), bad).toThrow(/unsupported FTS expression/);
  });
});

describe('phraseCounts', () => {
  it('counts consecutive instances per column, overlapping ones included', () => {
    const row = new Map([
      ['a', new Map([[0, [0, 1, 2]], [1, [5]]])],
      ['b', new Map([[0, [3]], [1, [6]]])],
    ]);
    expect(phraseCounts(row, ['a', 'a'])).toEqual(new Map([[0, 2]]));
    expect(phraseCounts(row, ['a', 'b'])).toEqual(new Map([[0, 1], [1, 1]]));
    expect(phraseCounts(row, ['b', 'a'])).toEqual(new Map());
    expect(phraseCounts(row, [])).toEqual(new Map());
  });
});

const WORDS = ['x', 'y', 'z', 'q', 'w'];
const COLUMNS = 3;

const rowArb = fc.array(fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }), { minLength: COLUMNS, maxLength: COLUMNS });
const phraseArb = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 2 }).map((w) => `"${w.join(' ')}"`);
const groupArb = fc.array(phraseArb, { minLength: 1, maxLength: 3 }).map((alts) => (alts.length === 1 ? alts[0]! : `(${alts.join(' OR ')})`));
const exprArb = fc.tuple(fc.array(groupArb, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([groups, and]) => groups.join(and ? ' AND ' : ' OR '));
const weightsArb = fc.array(fc.integer({ min: 1, max: 60 }).map((n) => n / 10), { minLength: COLUMNS, maxLength: COLUMNS });

describe('fts5Bm25 matches SQLite FTS5', () => {
  it('same rows and scores for random tables and expressions', () => {
    const db = openDatabase(':memory:', { create: true });
    db.exec(`CREATE VIRTUAL TABLE temp.oracle USING fts5(c0, c1, c2, tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'")`);
    try {
      fc.assert(
        fc.property(fc.array(rowArb, { minLength: 1, maxLength: 12 }), exprArb, weightsArb, (rows, expression, weights) => {
          db.exec('DELETE FROM temp.oracle');
          const insert = db.prepare('INSERT INTO temp.oracle(rowid, c0, c1, c2) VALUES (?, ?, ?, ?)');
          const table = new Map<number, ScoredRow>();
          let tokens = 0;
          rows.forEach((cols, i) => {
            insert.run(i + 1, ...cols.map((c) => c.join(' ')));
            const postings = new Map<string, Map<number, number[]>>();
            cols.forEach((words, col) =>
              words.forEach((w, pos) => {
                if (!postings.has(w)) postings.set(w, new Map());
                const byCol = postings.get(w)!;
                byCol.set(col, [...(byCol.get(col) ?? []), pos]);
              }),
            );
            const length = cols.reduce((n, c) => n + c.length, 0);
            tokens += length;
            table.set(i + 1, { postings, length, multiplicity: 1 });
          });
          const w = weights.map((x) => x.toFixed(4)).join(', ');
          const expected = db.prepare<[string], { id: number; s: number }>(`SELECT rowid AS id, bm25(oracle, ${w}) AS s FROM temp.oracle WHERE oracle MATCH ?`).all(expression);
          const parsed = parseFtsExpression(expression);
          const got = fts5Bm25(parsed, parsed.phrases.map((p) => p.split(' ')), table, { rows: rows.length, tokens }, weights);
          expect([...got.keys()].sort((a, b) => a - b)).toEqual(expected.map((e) => e.id).sort((a, b) => a - b));
          for (const e of expected) expect(Math.abs(got.get(e.id)! - e.s)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(e.s)));
        }),
        { numRuns: 300 },
      );
    } finally {
      db.close();
    }
  });
});
