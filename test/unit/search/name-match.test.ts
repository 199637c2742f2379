import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestName, identifierWords, NameMemo, nameScore, nameStem, nameWeights, queryNameWords } from '../../../src/search/name-match.js';
import { extractFeatures, type RankerCandidate } from '../../../src/search/learned-rank.js';
import { isTestPath } from '../../../src/search/rank.js';

describe('nameStem', () => {
  it('takes plural and verb endings off', () => {
    expect(['returns', 'entities', 'classes', 'indexes', 'names', 'created', 'parsing', 'gets', 'status', 'is', 'uses'].map(nameStem)).toEqual(['return', 'entity', 'class', 'index', 'name', 'creat', 'pars', 'get', 'status', 'is', 'use']);
  });
});

describe('queryNameWords', () => {
  it('keeps content words and the words that describe a test, stemmed lightly', () => {
    expect(queryNameWords('Returns the primary keys of an entity')).toEqual(['return', 'primary', 'key', 'entity']);
    expect(queryNameWords('Check whether a selector is standard')).toEqual(['check', 'whether', 'selector', 'standard']);
  });

  it('splits words written as code', () => {
    expect(queryNameWords('Gets the fieldNames of prop')).toEqual(['get', 'field', 'name', 'prop']);
  });
});

describe('identifierWords', () => {
  it('splits a name into distinct words, function words out but for the first', () => {
    expect(identifierWords('getPrimaryKey')).toEqual(['get', 'primary', 'key']);
    expect(identifierWords('ManyToMany')).toEqual(['many']);
    expect(identifierWords('ManyToOne')).toEqual(['many', 'one']);
    expect(identifierWords('toJSON')).toEqual(['to', 'json']);
  });
});

describe('nameScore', () => {
  it('tells apart names that differ in one word', () => {
    const q = queryNameWords('Defines a many-to-one relationship');
    expect(nameScore(q, 'ManyToOne')).toBeGreaterThan(nameScore(q, 'ManyToMany'));
  });

  it('matches a leading verb by the words a description uses for it', () => {
    const q = queryNameWords('Returns the primary key of an entity');
    // get ← returns, primary, key: 3 of 3 name words against 4 query words
    expect(nameScore(q, 'getPrimaryKey')).toBeCloseTo((2 * 3) / (3 + 4));
    expect(nameScore(queryNameWords('Check whether a selector is standard'), 'isStandardSelector')).toBeCloseTo((2 * 3) / (3 + 4));
  });

  it('a verb synonym counts only as the name\'s first word', () => {
    const q = queryNameWords('Returns the cache');
    expect(nameScore(q, 'getCache')).toBeGreaterThan(nameScore(q, 'cacheGet'));
  });

  it('ranks the described name above a sibling sharing fewer words', () => {
    const q = queryNameWords('Check if a character is whitespace');
    expect(nameScore(q, 'isWhitespace')).toBeGreaterThan(nameScore(q, 'isOnlyWhitespace'));
    expect(nameScore(q, 'isOnlyWhitespace')).toBeGreaterThan(nameScore(q, 'rule'));
    expect(nameScore(q, 'rule')).toBe(0);
  });

  it('matches a word and its longer form (3+ letters, up to 3 more)', () => {
    expect(nameScore(['column'], 'getCol')).toBeGreaterThan(0);
    expect(nameScore(['is'], 'isolate')).toBe(0);
    // a name word that is an Object.prototype key is no verb
    expect(nameScore(['make'], 'constructorOf')).toBe(0);
  });

  it('is 0–1 and total on any input (names and queries are untrusted text)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (query, name) => {
        const s = nameScore(queryNameWords(query), name);
        expect(s >= 0 && s <= 1).toBe(true);
        expect(identifierWords(name).every((w) => /[a-z]/.test(w))).toBe(true);
      }),
    );
  });
});

describe('bestName', () => {
  it('takes the best-named definition of a chunk that holds several', () => {
    const q = queryNameWords('Serializes the collection items to plain JSON objects');
    expect(bestName(q, ['add', 'toJSON', 'remove']).name).toBe('toJSON');
    expect(bestName(q, ['add', 'remove'])).toEqual({ name: undefined, score: 0 });
  });
});

describe('the nameMatch feature', () => {
  const cand = (symbol: string, names?: string[]): RankerCandidate => ({ path: 'src/a.ts', startLine: 1, endLine: 9, kind: 'function', contentType: 'code', symbol, container: null, signature: null, text: '', names });
  const q = { words: ['primary', 'key'], names: new Set<string>(), wantsTests: false, wantsDocs: false, long: false, codeWords: [], isTest: isTestPath };

  it('is the best name of the chunk, its symbol when the names are not known, 0 without query words', () => {
    const nameWords = queryNameWords('Returns the primary key of an entity');
    const f = extractFeatures([cand('getPrimaryKey'), cand('extract', ['extract', 'getPrimaryKey']), cand('other')], { ...q, nameWords });
    expect(f[0]!.nameMatch).toBeGreaterThan(0.5);
    expect(f[1]!.nameMatch).toBe(f[0]!.nameMatch);
    expect(f[2]!.nameMatch).toBe(0);
    expect(extractFeatures([cand('getPrimaryKey')], q)[0]!.nameMatch).toBe(0);
  });
});

describe('nameWeights', () => {
  it('weighs a word most candidates\' names carry below a rare one', () => {
    const query = queryNameWords('Make every nested field of an object schema optional');
    const w = nameWeights(query, [['objectSchema'], ['jsonSchema'], ['toJSONSchema'], ['deepPartial', 'makeOptional']]);
    const of = (word: string): number => w[query.indexOf(word)]!;
    expect(of('schema')).toBeLessThan(of('optional'));
    expect(of('nest')).toBeGreaterThan(of('schema'));
  });

  it('with weights, the name that carries the rare word wins over the one carrying the common one', () => {
    const query = queryNameWords('Make every nested field of an object schema optional');
    const namesOf = [['objectSchema'], ['jsonSchema'], ['toJSONSchema'], ['makeOptional']];
    const w = nameWeights(query, namesOf);
    expect(nameScore(query, 'makeOptional', w)).toBeGreaterThan(nameScore(query, 'jsonSchema', w));
    // all weights 1: the plain Dice overlap
    expect(nameScore(query, 'makeOptional', query.map(() => 1))).toBeCloseTo(nameScore(query, 'makeOptional'));
  });
});

describe('NameMemo (issue 19: each name split and each word decided once per search)', () => {
  // names drawn from a small alphabet of words, so names and words recur as in a real pool
  const part = fc.constantFrom('get', 'Get', 'is', 'to', 'JSON', 'Key', 'keys', 'primary', 'Primary', 'schema', 'Schema', 'make', 'optional', 'many', 'One', 'parse', 'Config', 'config', 'clone', 'Deep', '_', '$', '2');
  const name = fc.array(part, { minLength: 1, maxLength: 4 }).map((ps) => ps.join(''));
  const names = fc.array(fc.array(name, { maxLength: 4 }), { maxLength: 12 });
  const query = fc.array(fc.constantFrom('get', 'returns', 'the', 'primary', 'keys', 'whether', 'schema', 'optional', 'parse', 'configuration', 'deep', 'clone', 'one', 'to', 'json', 'make'), { maxLength: 8 }).map((ws) => queryNameWords(ws.join(' ')));

  it('gives the weights and every best name bit for bit as without it, one memo across all candidates', () => {
    fc.assert(
      fc.property(query, names, (q, namesOf) => {
        const memo = new NameMemo();
        const w = nameWeights(q, namesOf, memo);
        expect(w).toEqual(nameWeights(q, namesOf));
        for (const ns of namesOf) {
          expect(bestName(q, ns, w, memo)).toEqual(bestName(q, ns, w));
          expect(bestName(q, ns, undefined, memo)).toEqual(bestName(q, ns));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('tells a leading word from the same word later in a name (only the first may be a verb)', () => {
    const memo = new NameMemo();
    const q = queryNameWords('Returns the value');
    // `get` leads getValue (named by "returns") but not valueGet: one memo must keep both answers
    expect(nameScore(q, 'getValue', undefined, memo)).toBe(nameScore(q, 'getValue'));
    expect(nameScore(q, 'valueGet', undefined, memo)).toBe(nameScore(q, 'valueGet'));
    expect(nameScore(q, 'getValue')).toBeGreaterThan(nameScore(q, 'valueGet'));
  });
});
