import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngineError } from '../../../src/core/errors.js';
import { compileTextPattern, requiredLiteral, requiredRuns, smartCase } from '../../../src/search/text-pattern.js';
import { clipLine, MAX_MATCH_TEXT_CHARS, scanBuffer } from '../../../src/search/text-search.js';

interface Hit {
  line: number;
  column: number;
  text: string;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * The definition of a match, written as plainly as possible: split into lines (a final newline
 * ends the last line, it does not start one), drop one trailing \r, and test each line alone.
 */
function oracle(text: string, query: string, regex: boolean, caseSensitive: boolean): Hit[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const re = regex ? new RegExp(query, caseSensitive ? 'mu' : 'imu') : caseSensitive ? undefined : new RegExp(escape(query), 'i');
  const hits: Hit[] = [];
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const at = re ? (re.exec(line)?.index ?? -1) : line.indexOf(query);
    if (at !== -1) hits.push({ line: i + 1, column: at + 1, text: clipLine(line, at) });
  });
  return hits;
}

const scan = (text: string, query: string, regex: boolean, caseSensitive?: boolean, max = 10_000): Hit[] =>
  scanBuffer(Buffer.from(text, 'utf8'), compileTextPattern(query, { regex, caseSensitive }), max);

const errorOf = (fn: () => unknown): EngineError => {
  try {
    fn();
  } catch (err) {
    return err as EngineError;
  }
  throw new Error('expected a throw');
};

describe('search_text scanner', () => {
  it('finds a literal: one hit per line, 1-based line and column, the whole line as text', () => {
    const text = 'alpha beta\nno\n  beta beta\nbeta';
    expect(scan(text, 'beta', false)).toEqual([
      { line: 1, column: 7, text: 'alpha beta' },
      { line: 3, column: 3, text: '  beta beta' },
      { line: 4, column: 1, text: 'beta' },
    ]);
    expect(scan(text, 'gamma', false)).toEqual([]);
    expect(scan('', 'x', false)).toEqual([]);
  });

  it('uses smart case unless told, and says which it used', () => {
    expect(smartCase('todo', false)).toBe(false);
    expect(smartCase('TODO', false)).toBe(true);
    // escapes and group names are not letters the user typed
    expect(smartCase('\\W+\\S\\p{Lu}(?<Name>x)', true)).toBe(false);
    expect(smartCase('Foo\\d', true)).toBe(true);
    const text = 'Todo one\ntodo two\nTODO three';
    expect(scan(text, 'todo', false).map((h) => h.line)).toEqual([1, 2, 3]);
    expect(scan(text, 'TODO', false).map((h) => h.line)).toEqual([3]);
    expect(scan(text, 'todo', false, true).map((h) => h.line)).toEqual([2]);
    expect(scan(text, 'TODO', false, false).map((h) => h.line)).toEqual([1, 2, 3]);
    expect(compileTextPattern('TODO', { regex: false, caseSensitive: undefined }).caseSensitive).toBe(true);
  });

  it('folds ASCII letters to ASCII only in case-insensitive literals (no Kelvin sign), and other letters by their case', () => {
    expect(scan('\u212Aelvin\nKELVIN', 'kelvin', false, false).map((h) => h.line)).toEqual([2]);
    expect(scan('ÉCOLE\nécole', 'école', false, false).map((h) => h.line)).toEqual([1, 2]);
  });

  it('runs regexes with groups, alternation, anchors and backreferences', () => {
    const text = 'function foo(a) {\n  return foo(a);\n}\nconst bar = (x) => x;\nabab\n';
    expect(scan(text, 'function\\s+(\\w+)\\(', true)).toEqual([{ line: 1, column: 1, text: 'function foo(a) {' }]);
    expect(scan(text, '^\\s*return', true).map((h) => h.line)).toEqual([2]);
    expect(scan(text, ';$', true).map((h) => h.line)).toEqual([2, 4]);
    expect(scan(text, 'const|return', true).map((h) => [h.line, h.column])).toEqual([[2, 3], [4, 1]]);
    expect(scan(text, '(ab)\\1', true).map((h) => h.line)).toEqual([5]);
    expect(scan(text, '^$', true)).toEqual([]);
    expect(scan('a\n\nb', '^$', true)).toEqual([{ line: 2, column: 1, text: '' }]);
  });

  it('never matches across lines: a regex that could span a newline is checked line by line', () => {
    expect(scan('foo\nbar', 'foo\\sbar', true)).toEqual([]);
    expect(scan('foo \nbar', 'o[^x]*b', true)).toEqual([]);
    // the leftmost whole-file match crosses the line end, but the line has its own match later
    expect(scan('ab a\nb', 'a\\s*b', true)).toEqual([{ line: 1, column: 1, text: 'ab a' }]);
    expect(scan('x a\nb ab', 'a\\s*b', true)).toEqual([{ line: 2, column: 3, text: 'b ab' }]);
    // lookarounds do not see the next line
    expect(scan('foo\nbar', 'foo(?!\\s)', true)).toEqual([{ line: 1, column: 1, text: 'foo' }]);
    expect(scan('foo\nbar', '(?<=\\n)bar', true)).toEqual([]);
  });

  it('stays linear when matches keep crossing line ends: the rest of the file is read line by line', () => {
    // every line starts a whole-file match that runs to the last b; each is rejected on its own line
    const text = `${'a x\n'.repeat(50)}a ab\n${'a\n'.repeat(20)}b\n`;
    const hits = scan(text, 'a[^;]*b', true);
    expect(hits).toEqual([{ line: 51, column: 1, text: 'a ab' }]);
    expect(hits).toEqual(oracle(text, 'a[^;]*b', true, true));
    expect(scan(text, 'a[^;]*b', true, undefined, 1)).toEqual(hits.slice(0, 1));
  });

  it('counts columns in UTF-16 code units after multi-byte characters', () => {
    const text = 'héllo wörld\n😀 smile\n日本語テキスト';
    expect(scan(text, 'wörld', false)).toEqual([{ line: 1, column: 7, text: 'héllo wörld' }]);
    expect(scan(text, 'smile', false)).toEqual([{ line: 2, column: 4, text: '😀 smile' }]);
    expect(scan(text, 'テキ', false)).toEqual([{ line: 3, column: 4, text: '日本語テキスト' }]);
    expect(scan(text, 'SMILE', false, false)).toEqual([{ line: 2, column: 4, text: '😀 smile' }]);
    expect(scan(text, 'w.rld', true)).toEqual([{ line: 1, column: 7, text: 'héllo wörld' }]);
    expect(scan(text, '\\p{Script=Han}+', true)).toEqual([{ line: 3, column: 1, text: '日本語テキスト' }]);
  });

  it('handles CRLF: text without \\r, and $ ends a CRLF line', () => {
    const text = 'one;\r\ntwo\r\nthree;\r\n';
    expect(scan(text, ';$', true).map((h) => [h.line, h.text])).toEqual([[1, 'one;'], [3, 'three;']]);
    expect(scan(text, 'two', false)).toEqual([{ line: 2, column: 1, text: 'two' }]);
    expect(scan(text, 'TWO', false, false)).toEqual([{ line: 2, column: 1, text: 'two' }]);
    expect(scan('last\r', 'st$', true)).toEqual([{ line: 1, column: 3, text: 'last' }]);
  });

  it('stops after max hits', () => {
    const text = Array.from({ length: 50 }, (_, i) => `x${i}`).join('\n');
    expect(scan(text, 'x', false, undefined, 3).map((h) => h.line)).toEqual([1, 2, 3]);
    expect(scan(text, 'x\\d', true, undefined, 2).map((h) => h.line)).toEqual([1, 2]);
  });

  it('cuts long lines around the match without splitting a surrogate pair', () => {
    const line = `${'a'.repeat(1000)}NEEDLE${'b'.repeat(1000)}`;
    const [hit] = scan(line, 'NEEDLE', false);
    expect(hit!.column).toBe(1001);
    expect(hit!.text).toContain('NEEDLE');
    expect(hit!.text.startsWith('…') && hit!.text.endsWith('…')).toBe(true);
    expect(hit!.text.length).toBeLessThanOrEqual(MAX_MATCH_TEXT_CHARS + 2);
    const emoji = '😀'.repeat(400);
    for (const at of [0, 1, 101, 400, 799]) {
      const cut = clipLine(emoji, at).replace(/…/g, '');
      expect(cut.length % 2).toBe(0);
      expect(/^(?:\uD83D\uDE00)+$/.test(cut)).toBe(true);
    }
    expect(clipLine('short', 2)).toBe('short');
  });

  it('rejects bad queries with catalogue codes', () => {
    expect(errorOf(() => compileTextPattern('', { regex: false, caseSensitive: undefined })).code).toBe('QUERY_EMPTY');
    expect(errorOf(() => compileTextPattern('x'.repeat(5000), { regex: false, caseSensitive: undefined })).code).toBe('QUERY_TOO_LONG');
    const bad = errorOf(() => compileTextPattern('foo(', { regex: true, caseSensitive: undefined }));
    expect(bad.code).toBe('INVALID_ARGUMENT');
    expect(bad.message).toMatch(/not a valid regular expression: .*Unterminated group/);
    for (const q of ['(?i)foo', 'a(?-s:b)', '(?P<name>x)']) {
      expect(errorOf(() => compileTextPattern(q, { regex: true, caseSensitive: undefined })).message).toMatch(/inline flags are not supported/);
    }
    // the same text is fine escaped, in a class, or as a literal
    expect(() => compileTextPattern('\\(?i\\)', { regex: true, caseSensitive: undefined })).not.toThrow();
    expect(() => compileTextPattern('[(?i)]', { regex: true, caseSensitive: undefined })).not.toThrow();
    expect(() => compileTextPattern('(?i)', { regex: false, caseSensitive: undefined })).not.toThrow();
    expect(errorOf(() => compileTextPattern('a\nb', { regex: false, caseSensitive: undefined })).message).toMatch(/single line/);
    expect(errorOf(() => compileTextPattern('\uD800', { regex: false, caseSensitive: undefined })).message).toMatch(/surrogate/);
    // legacy escapes that the u flag refuses still compile
    expect(scan('a:b-c', 'a\\:b\\-c', true)).toHaveLength(1);
  });

  it('reads required literals conservatively', () => {
    expect(requiredRuns('function\\s+\\w+\\(')).toEqual(['function', '(']);
    expect(requiredRuns('colou?r')).toEqual(['colo', 'r']);
    expect(requiredRuns('ab+c')).toEqual(['ab', 'c']);
    expect(requiredRuns('ab{0,2}c')).toEqual(['a', 'c']);
    expect(requiredRuns('foo|bar')).toEqual([]);
    expect(requiredRuns('(foo|bar)baz')).toEqual(['baz']);
    expect(requiredRuns('\\x41BC\\u0044E\\p{L}F\\k<n>G')).toEqual(['BC', 'E', 'F', 'G']);
    expect(requiredRuns('[abc]def\\.g')).toEqual(['def.g']);
    expect(requiredLiteral('Kind_of', true)).toEqual({ kind: 'bytes', text: 'Kind_of', bytes: Buffer.from('Kind_of') });
    // k and s also match the Kelvin sign and long s under `iu`: split there
    const ci = requiredLiteral('kind_of_ascii', false);
    expect(ci?.kind).toBe('ascii-ci');
    expect(ci?.kind === 'ascii-ci' && ci.re.source).toBe('ind_of_a');
    expect(requiredLiteral('::', false)).toEqual({ kind: 'bytes', text: '::', bytes: Buffer.from('::') });
  });
});

// Texts and queries from a small alphabet full of traps: case pairs, the Kelvin sign and long s,
// multi-byte and astral characters, CR, U+2028 (a JS line terminator inside a line).
const CHARS = ['a', 'b', 'A', 'B', 'k', 'K', '\u212A', 's', 'ſ', 'é', 'É', '😀', ' ', '_', '(', '.', '\r', '\u2028', '1'];
const textArb = fc.array(fc.constantFrom(...CHARS, '\n', '\n', '\r\n'), { maxLength: 60 }).map((a) => a.join(''));
const literalArb = fc.array(fc.constantFrom(...CHARS.filter((c) => c !== '\r')), { minLength: 1, maxLength: 4 }).map((a) => a.join(''));
const atomArb = fc.constantFrom('a', 'b', 'A', 'k', 's', 'é', '😀', ' ', '.', '\\s', '\\S', '\\w', '\\W', '\\d', '[ab]', '[^a]', '\\b', '^', '$', '\\(', '(a|b)', '(?:ab)', '(?=a)', '(?!b)', '(?<=a)', '(?<!\\s)', '\\p{L}', '_');
const quantArb = fc.constantFrom('', '', '', '*', '+', '?', '{1,2}', '*?');
const regexArb = fc.array(fc.tuple(atomArb, quantArb), { minLength: 1, maxLength: 5 }).map((parts) => parts.map(([a, q]) => (['^', '$', '\\b', '(?=a)', '(?!b)', '(?<=a)', '(?<!\\s)'].includes(a) ? a : a + q)).join(''));
const validRegex = (q: string): boolean => {
  try {
    new RegExp(q, 'u');
    return true;
  } catch {
    return false;
  }
};

describe('search_text scanner against a naive line-by-line oracle', () => {
  it('literals (any case mode) equal the oracle', () => {
    fc.assert(
      fc.property(textArb, fc.oneof(literalArb, textArb.filter((t) => t !== '' && !/[\r\n]/.test(t))), fc.boolean(), (text, query, cs) => {
        expect(scan(text, query, false, cs)).toEqual(oracle(text, query, false, cs));
      }),
      { numRuns: 2000 },
    );
  });

  it('literals taken from the text itself equal the oracle', () => {
    fc.assert(
      fc.property(textArb, fc.nat(), fc.integer({ min: 1, max: 5 }), fc.boolean(), (text, start, len, cs) => {
        const query = text.slice(start % Math.max(1, text.length), (start % Math.max(1, text.length)) + len).replace(/[\r\n]/g, '');
        fc.pre(query !== '' && !/\p{Cs}/u.test(query));
        expect(scan(text, query, false, cs)).toEqual(oracle(text, query, false, cs));
      }),
      { numRuns: 2000 },
    );
  });

  it('regexes (any case mode) equal the oracle', () => {
    fc.assert(
      fc.property(textArb, regexArb.filter(validRegex), fc.boolean(), (text, query, cs) => {
        expect(scan(text, query, true, cs)).toEqual(oracle(text, query, true, cs));
      }),
      { numRuns: 3000 },
    );
  });

  it('regexes over many lines (matches crossing line ends again and again) equal the oracle', () => {
    const manyLines = fc.array(fc.constantFrom('a', 'b', ' ', ';', 'x', '\n', '\n', '\n', '\r\n'), { maxLength: 400 }).map((a) => a.join(''));
    const spanning = fc.constantFrom('a[^;]*b', 'a\\s*b', 'x[^x]+x', '\\W+b', 'a(?:[^;]|\\n)*?;', 'b\\s*$', '^\\s*a');
    fc.assert(
      fc.property(manyLines, spanning, fc.integer({ min: 1, max: 200 }), (text, query, max) => {
        expect(scan(text, query, true, true, max)).toEqual(oracle(text, query, true, true).slice(0, max));
      }),
      { numRuns: 500 },
    );
  });

  it('stopping after max hits gives the oracle prefix', () => {
    fc.assert(
      fc.property(textArb, regexArb.filter(validRegex), fc.integer({ min: 1, max: 4 }), (text, query, max) => {
        expect(scan(text, query, true, undefined, max)).toEqual(oracle(text, query, true, smartCase(query, true)).slice(0, max));
      }),
      { numRuns: 1000 },
    );
  });
});
