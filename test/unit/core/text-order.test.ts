import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localeOrder } from '../../../src/core/text-order.js';

/** Printable ASCII (compared without ICU), weighted towards letters, plus characters that send a comparison to ICU. */
const ASCII = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i));
const CHARS = [...ASCII, ...'abcABCxyzXYZ', ...'é中\u0301\t\u0000'];
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 12 }).map((cs) => cs.join(''));

describe('localeOrder', () => {
  it('has the sign of localeCompare for any two strings', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(Math.sign(localeOrder(a, b))).toBe(Math.sign(a.localeCompare(b)));
      }),
      { numRuns: 5000 },
    );
  });

  it('orders plain paths as localeCompare does: punctuation, then digits, then letters; a prefix first', () => {
    const paths = ['src/b.ts', 'src/a-b.ts', 'src/a.ts', 'src/a/b.ts', 'src/a0.ts', 'src', 'lib/x.js', 'src/a.d.ts'];
    expect([...paths].sort(localeOrder)).toEqual([...paths].sort((a, b) => a.localeCompare(b)));
    expect([...paths].sort(localeOrder)).toEqual(['lib/x.js', 'src', 'src/a-b.ts', 'src/a.d.ts', 'src/a.ts', 'src/a/b.ts', 'src/a0.ts', 'src/b.ts']);
  });

  it('orders as the collation does where code units would not: case, underscores, punctuation against digits', () => {
    expect(localeOrder('server.go', 'UserController.php')).toBeLessThan(0); // code units: 'U' < 's'
    expect(localeOrder('a_b', 'a-b')).toBeLessThan(0); // code units: '-' < '_'
    expect(localeOrder('ab', 'Ab')).toBeLessThan(0); // small letter first, at the tertiary level
    expect(localeOrder('Ab', 'ac')).toBeLessThan(0); // but a primary difference later wins
    expect(localeOrder('a~', 'a0')).toBeLessThan(0); // code units: '0' < '~'
  });
});
