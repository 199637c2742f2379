import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { buildFtsExpression } from '../../../src/search/fts-expression.js';
import { MAX_QUERY_BYTES, parseQuery } from '../../../src/search/query-parse.js';

const alternatives = (q: string): string[][][] => parseQuery(q).groups.map((g) => g.alternatives.map((a) => [...a]));

describe('parseQuery', () => {
  it('keeps identifiers whole and also split', () => {
    const g = parseQuery('getUserName').groups;
    expect(g).toHaveLength(1);
    expect(g[0]!.kind).toBe('identifier');
    expect(g[0]!.alternatives).toEqual([['getusername'], ['get', 'user', 'name']]);
  });

  it('matches an identifier across case styles', () => {
    // FTS5 stores `treeifyError` as "treeifyerror" and `treeify_error` as "treeify_error"
    expect(parseQuery('treeify_error').groups[0]!.alternatives).toEqual([['treeify_error'], ['treeifyerror'], ['treeify', 'error']]);
  });

  it('tries two adjacent plain words as one identifier, in short queries only', () => {
    const keys = parseQuery('open database handle').groups.map((g) => g.key);
    expect(keys).toEqual(['w:open', 'w:database', 'w:handle', 'j:opendatabase', 'j:databasehandle']);
    expect(parseQuery('the open database').groups.map((g) => g.key)).not.toContain('j:theopen');
    // identifier verbs are not stop words: "get user" still meets getUser
    expect(parseQuery('get user').groups.map((g) => g.key)).toEqual(['w:get', 'w:user', 'j:getuser']);
    expect(parseQuery(`open database ${'and more words '.repeat(20)}`).groups.some((g) => g.kind === 'joined')).toBe(false);
  });

  it('drops stop words from prose but keeps them when nothing else is left', () => {
    expect(alternatives('where is the function that parses the config')).toEqual([[['parses']], [['config']]]);
    expect(alternatives('parse config')).toEqual([[['parse']], [['config']], [['parseconfig']]]);
    expect(alternatives('how does it work')).toEqual([[['work']]]);
    expect(alternatives('how does it').slice(0, 3)).toEqual([[['how']], [['does']], [['it']]]);
  });

  it('turns quoted text into a required phrase in short queries', () => {
    const g = parseQuery('"open database" retry').groups;
    expect(g[0]).toMatchObject({ kind: 'phrase', alternatives: [['open', 'database']], required: true });
    expect(g[1]).toMatchObject({ kind: 'word', required: false });
  });

  it('treats dotted, scoped and path tokens as phrases plus their segments', () => {
    const g = parseQuery('os.path.join src/store/database.ts Foo::bar').groups.map((x) => x.key);
    expect(g).toContain('p:os path join');
    expect(g).toContain('w:join');
    expect(g).toContain('p:src store database ts');
    expect(g).toContain('w:database');
    expect(g).toContain('p:foo bar');
  });

  it('counts repeated concepts instead of duplicating them', () => {
    const g = parseQuery('cache cache cache invalidation').groups;
    expect(g.find((x) => x.key === 'w:cache')!.count).toBe(3);
  });

  it('does not require quotes in long queries', () => {
    const long = `${'The indexer crashes when a file is renamed. '.repeat(6)}"exact phrase"`;
    const g = parseQuery(long);
    expect(g.long).toBe(true);
    expect(g.groups.every((x) => !x.required)).toBe(true);
  });

  it.each(['', '   ', '"" () * ^ : - + {} []', '"', 'AND OR NOT', '!!!', '\u0000\u0001'])('rejects %j with QUERY_EMPTY', (q) => {
    try {
      parseQuery(q === 'AND OR NOT' ? '* : ^' : q);
      expect.unreachable();
    } catch (err) {
      expect((err as EngineError).code).toBe('QUERY_EMPTY');
    }
  });

  it('rejects input over the size limit with QUERY_TOO_LONG', () => {
    expect(() => parseQuery('a'.repeat(MAX_QUERY_BYTES + 1))).toThrow(expect.objectContaining({ code: 'QUERY_TOO_LONG' }));
  });
});

describe('FTS5 expression safety (property)', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(stem, path, symbol, body, parts, tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'")`);
  db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?)').run('a', 'b', 'c', 'some body text with getUserName and "quotes"', 'get user name');
  const run = (expr: string): unknown[] => db.prepare('SELECT rowid FROM t WHERE t MATCH ?').all(expr);

  const ftsHostile = fc.oneof(
    fc.string({ unit: fc.constantFrom(...'"()*^:+-{}[]<>~!@#$%&|\\/.,;\'` \n\tANDORNOTNEAR_aZ09é中'.split('')), maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
  );

  it('never produces an FTS5 syntax error for any input', () => {
    fc.assert(
      fc.property(ftsHostile, (q) => {
        let parsed;
        try {
          parsed = parseQuery(q);
        } catch (err) {
          expect(err).toBeInstanceOf(EngineError);
          expect(['QUERY_EMPTY', 'QUERY_TOO_LONG']).toContain((err as EngineError).code);
          return;
        }
        expect(() => run(buildFtsExpression(parsed.groups))).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('builds expressions that still match what they should', () => {
    expect(run(buildFtsExpression(parseQuery('getUserName').groups))).toHaveLength(1);
    expect(run(buildFtsExpression(parseQuery('"body text"').groups))).toHaveLength(1);
    expect(run(buildFtsExpression(parseQuery('"text body"').groups))).toHaveLength(0);
    expect(run(buildFtsExpression(parseQuery('user name').groups))).toHaveLength(1);
  });
});
