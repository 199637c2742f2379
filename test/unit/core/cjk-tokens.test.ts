/**
 * CJK terms (src/core/code-tokens.ts) and their query side (src/search/query-parse.ts): a run of
 * CJK letters is indexed as its bigrams, and any substring of two or more characters, searched
 * as the phrase of its bigrams, is found in it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cjkBigrams, cjkPieces, cjkTerms, hasCjk } from '../../../src/core/code-tokens.js';
import { parseQuery } from '../../../src/search/query-parse.js';

describe('cjkTerms', () => {
  it('bigrams each run, keeps the other pieces of a mixed word, one word per " ; "', () => {
    expect(cjkTerms('连接数据库失败 retryCount データベース timeout 데이터베이스에 数据库timeout')).toBe(
      '连接 接数 数据 据库 库失 失败 ; デー ータ タベ ベー ース ; 데이 이터 터베 베이 이스 스에 ; 数据 据库 timeout',
    );
  });

  it('is empty for text without CJK letters, and a single character is itself', () => {
    expect(cjkTerms('const timeout = 5000; // café, naïve, Ελληνικά')).toBe('');
    expect(cjkTerms('库')).toBe('库');
    expect(hasCjk('ー')).toBe(true);
    expect(hasCjk('abc')).toBe(false);
  });

  it('splits a word into CJK runs and other pieces', () => {
    expect(cjkPieces('get数据库By')).toEqual([
      { text: 'get', cjk: false },
      { text: '数据库', cjk: true },
      { text: 'By', cjk: false },
    ]);
  });

  it('property: every substring of 2+ characters of a run, as a bigram phrase, occurs in the run\'s bigrams', () => {
    const cjkChar = fc.constantFrom(...'数据库超时重试连接失败データベースバックアップ데이터베이스재시도々ー'.split(''));
    fc.assert(
      fc.property(fc.array(cjkChar, { minLength: 2, maxLength: 30 }), fc.nat(), fc.nat(), (chars, a, b) => {
        const run = chars.join('');
        const start = a % (chars.length - 1);
        const end = start + 2 + (b % (chars.length - start - 1));
        const query = chars.slice(start, end).join('');
        const indexed = ` ${cjkTerms(run)} `;
        expect(indexed).toContain(` ${cjkBigrams(query).join(' ')} `);
      }),
      { numRuns: 300 },
    );
  });
});

describe('query parsing of CJK', () => {
  const alts = (q: string): unknown => parseQuery(q).groups.map((g) => [g.kind, g.alternatives]);

  it('a run: itself or the phrase of its bigrams; Latin words beside it stay words', () => {
    expect(alts('数据库')).toEqual([['word', [['数据库'], ['数据', '据库']]]]);
    expect(alts('数据库 timeout')).toEqual([
      ['word', [['数据库'], ['数据', '据库']]],
      ['word', [['timeout']]],
    ]);
    expect(alts('connect数据库')).toEqual([
      ['word', [['connect']]],
      ['word', [['数据库'], ['数据', '据库']]],
    ]);
  });

  it('a quoted CJK phrase is the phrase of the bigrams of its runs', () => {
    expect(alts('"数据库 连接"')).toEqual([['phrase', [['数据', '据库', '连接']]]]);
    expect(parseQuery('"数据库失败"').groups[0]).toMatchObject({ kind: 'phrase', required: true, alternatives: [['数据', '据库', '库失', '失败']] });
  });
});
