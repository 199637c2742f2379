/**
 * Query expansion's pure parts (issue 17): the table format (parse, and the errors that make a
 * damaged table MODEL_INVALID), the crude stem that keeps a word's own inflections out, and the
 * choice of expansion groups for a query.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expansionGroups, MAX_EXPANSION_TERMS, parseExpansionTable, stemOf } from '../../../src/search/expansion.js';
import { MAX_GROUP_WEIGHT, parseQuery } from '../../../src/search/query-parse.js';

const TABLE = parseExpansionTable('number\tcount:1 len:0.5 size:0.34\nremove\tdelete:1 del:0.8 unlink:0.4\nremoves\tremoved:1 clear:0.2\n', 'test');

describe('stemOf', () => {
  it('folds inflections of one word together and keeps different words apart', () => {
    expect(new Set(['remove', 'removes', 'removed', 'removing'].map(stemOf)).size).toBe(1);
    expect(stemOf('entries')).toBe(stemOf('entry'));
    expect(stemOf('delete')).not.toBe(stemOf('remove'));
    expect(stemOf('count')).not.toBe(stemOf('counter'.slice(0, 4)));
  });
});

describe('parseExpansionTable', () => {
  it('reads words with their tokens in order', () => {
    expect(TABLE.terms.get('remove')).toEqual([
      { term: 'delete', weight: 1 },
      { term: 'del', weight: 0.8 },
      { term: 'unlink', weight: 0.4 },
    ]);
    expect(TABLE.terms.size).toBe(3);
  });

  it.each([
    ['no tab', 'remove delete:1\n'],
    ['two tabs', 'remove\tdelete:1\tx\n'],
    ['bad weight', 'remove\tdelete:2\n'],
    ['uppercase word', 'Remove\tdelete:1\n'],
    ['token with a quote', 'remove\tdel"ete:1\n'],
    ['empty list', 'remove\t\n'],
  ])('refuses a line with %s, naming the line', (_what, text) => {
    expect(() => parseExpansionTable(`number\tcount:1\n${text}`, 'x')).toThrow(/line 2/);
  });

  it('never lets anything but lowercase letters through as a token (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        try {
          const t = parseExpansionTable(text, 'x');
          for (const [w, ts] of t.terms) {
            expect(w).toMatch(/^[a-z]+$/);
            for (const x of ts) expect(x.term).toMatch(/^[a-z]+$/);
          }
        } catch (err) {
          expect((err as Error).message).toMatch(/^terms\.tsv line \d+/);
        }
      }),
    );
  });
});

describe('expansionGroups', () => {
  it('adds each plain word’s tokens as optional word groups weighted by strength in thirds', () => {
    const groups = expansionGroups(parseQuery('remove the entry').groups, TABLE);
    expect(groups.map((g) => [g.group.raw, g.from, g.group.weight])).toEqual([
      ['delete', 'remove', MAX_GROUP_WEIGHT],
      ['del', 'remove', 2],
      ['unlink', 'remove', 1],
    ]);
    for (const g of groups) expect(g.group).toMatchObject({ kind: 'word', required: false, alternatives: [[g.group.raw]] });
  });

  it('leaves out tokens that are already query words or their inflections', () => {
    const raws = expansionGroups(parseQuery('removes removed item').groups, TABLE).map((g) => g.group.raw);
    expect(raws).toEqual(['clear']);
    expect(expansionGroups(parseQuery('remove delete entry').groups, TABLE).map((g) => g.group.raw)).toEqual(['del', 'unlink']);
  });

  it('expands plain words only, never identifiers', () => {
    expect(expansionGroups(parseQuery('removeEntry numberOf').groups, TABLE)).toEqual([]);
  });

  it('keeps at most MAX_EXPANSION_TERMS, the strongest', () => {
    const big = parseExpansionTable(Array.from({ length: 10 }, (_, i) => `w${'abcdefghij'[i]}x\t${['a', 'b', 'c'].map((s, j) => `${s}${'abcdefghij'[i]}tok:${(1 - j * 0.3).toFixed(1)}`).join(' ')}\n`).join(''), 'x');
    const q = Array.from({ length: 10 }, (_, i) => `w${'abcdefghij'[i]}x`).join(' ');
    const groups = expansionGroups(parseQuery(q).groups, big);
    expect(groups).toHaveLength(MAX_EXPANSION_TERMS);
    expect(groups.filter((g) => g.strength === 1)).toHaveLength(10);
  });
});
