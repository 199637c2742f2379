/**
 * The pack's YAML forms: whatever a value holds (code, colons, dashes, quotes, leading spaces,
 * blank lines), it parses back as the same string and cannot break the structure around it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { blockScalar, field, inlineScalar, stringList } from '../../../src/context/yaml-text.js';

const tricky = fc.constantFrom(...'ab z09 \t\n\r:#-|>"\'\\{}[]!&*%@`?,é✓'.split(''));
const anyText = fc.string({ unit: tricky, maxLength: 40 });
const norm = (s: string): string => s.replace(/\r\n|\r/g, '\n');

describe('yaml-text', () => {
  it('round-trips any value through field() as a mapping value and inside a list item', () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        const doc = `top:\n${field('first', a, 4, true)}${field('second', b, 4)}after: 1\n`;
        expect(parse(doc)).toEqual({ top: [{ first: norm(a), second: norm(b) }], after: 1 });
      }),
      { numRuns: 400 },
    );
  });

  it('round-trips list entries exactly, line breaks included', () => {
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 4 }), (values) => {
        expect(parse(`x:\n${stringList('items', values, 2)}`)).toEqual({ x: { items: values } });
      }),
    );
  });

  it('writes safe words bare and quotes what YAML would read as another type or structure', () => {
    expect(['src/a.ts', 'src/a.ts:10-20', 'Fix the bug', 'a#b'].map(inlineScalar)).toEqual(['src/a.ts', 'src/a.ts:10-20', 'Fix the bug', 'a#b']);
    expect(['true', '12', '1e3', 'a: b', 'x #c', '- item', '', ' lead', 'null'].map(inlineScalar)).toEqual(
      ['"true"', '"12"', '"1e3"', '"a: b"', '"x #c"', '"- item"', '""', '" lead"', '"null"'],
    );
  });

  it('picks the chomping and indentation indicators a block needs', () => {
    expect(blockScalar('a\nb', 0)).toBe('|-\n  a\n  b');
    expect(blockScalar('a\nb\n', 0)).toBe('|\n  a\n  b');
    expect(blockScalar('a\n\n', 0)).toBe('|+\n  a\n');
    expect(blockScalar('  a\nb', 2)).toBe('|2-\n      a\n    b');
  });
});
