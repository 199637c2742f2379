import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTextEdits, MAX_EDITS, type TextEdit } from '../../../src/workspace/text-edits.js';
import { caught } from '../../helpers/caught.js';

const edit = (startLine: number, startCol: number, endLine: number, endCol: number, replacement: string): TextEdit => ({ startLine, startCol, endLine, endCol, replacement });

describe('text edits', () => {
  const text = 'function add(a, b) {\n  return a - b;\n}\n';

  it('replaces, inserts and deletes, all positions referring to the original text', () => {
    const out = applyTextEdits('m.ts', text, [
      edit(2, 9, 2, 14, 'a + b'), // replace
      edit(1, 0, 1, 0, '// sum\n'), // insert at the start
      edit(3, 0, 4, 0, '}\n\nexport { add };\n'), // replace the last line and its newline
    ]);
    expect(out).toBe('// sum\nfunction add(a, b) {\n  return a + b;\n}\n\nexport { add };\n');
    expect(applyTextEdits('m.ts', text, [edit(1, 0, 2, 0, '')])).toBe('  return a - b;\n}\n');
  });

  it('the empty line after the last newline is the end of the file; a range may cross lines', () => {
    expect(applyTextEdits('m.ts', 'a\nb\n', [edit(3, 0, 3, 0, 'c\n')])).toBe('a\nb\nc\n');
    expect(applyTextEdits('m.ts', 'a\nb', [edit(2, 1, 2, 1, '\n')])).toBe('a\nb\n');
    expect(applyTextEdits('m.ts', 'abc\ndef\n', [edit(1, 1, 2, 2, 'X')])).toBe('aXf\n');
  });

  it('two insertions at one position keep their order; touching ranges are not overlapping', () => {
    expect(applyTextEdits('m.ts', 'ab', [edit(1, 1, 1, 1, '1'), edit(1, 1, 1, 1, '2')])).toBe('a12b');
    expect(applyTextEdits('m.ts', 'abcd', [edit(1, 2, 1, 4, 'Y'), edit(1, 0, 1, 2, 'X')])).toBe('XY');
  });

  it('columns are UTF-16 offsets, and never split a surrogate pair', () => {
    expect(applyTextEdits('m.ts', 'a😀b\n', [edit(1, 3, 1, 4, 'c')])).toBe('a😀c\n');
    const split = caught(() => applyTextEdits('m.ts', 'a😀b\n', [edit(1, 2, 1, 3, '')]));
    expect(split.code).toBe('PATCH_CONFLICT');
    expect(split.message).toMatch(/surrogate pair/);
  });

  it('follows the file\'s line endings: CRLF files get CRLF, LF files get LF', () => {
    expect(applyTextEdits('w.txt', 'a\r\nb\r\n', [edit(2, 0, 2, 1, 'x\ny')])).toBe('a\r\nx\r\ny\r\n');
    // the line length of a CRLF line stops before \r
    expect(applyTextEdits('w.txt', 'ab\r\ncd\r\n', [edit(1, 2, 1, 2, '!')])).toBe('ab!\r\ncd\r\n');
    expect(applyTextEdits('u.txt', 'a\nb\n', [edit(1, 1, 1, 1, '\r\nz')])).toBe('a\nz\nb\n');
  });

  it('refuses overlapping edits (PATCH_INVALID) naming both', () => {
    const err = caught(() => applyTextEdits('m.ts', text, [edit(1, 0, 1, 5, 'x'), edit(2, 0, 2, 1, ''), edit(1, 4, 2, 0, 'y')]));
    expect(err.code).toBe('PATCH_INVALID');
    expect(err.message).toMatch(/edits 1 \(1:0-1:5\) and 3 \(1:4-2:0\) overlap/);
    expect(err.data.edits).toEqual([1, 3]);
  });

  it('refuses positions outside the file (PATCH_CONFLICT) with the edit, the line and the extent', () => {
    const pastEnd = caught(() => applyTextEdits('m.ts', text, [edit(9, 0, 9, 0, 'x')]));
    expect(pastEnd.code).toBe('PATCH_CONFLICT');
    expect(pastEnd.data).toMatchObject({ path: 'm.ts', edit: 1, line: 9 });
    expect(pastEnd.message).toMatch(/start_line 9 is past the end of the file, which has 4 lines; line 4 is the empty line after the last newline/);
    const pastCol = caught(() => applyTextEdits('m.ts', text, [edit(1, 0, 1, 0, ''), edit(3, 0, 3, 5, '')]));
    expect(pastCol.data).toMatchObject({ edit: 2, line: 3, found: '}' });
    expect(pastCol.message).toMatch(/end_col 5 is past the end of line 3, which is 1 UTF-16 code units long/);
  });

  it('refuses malformed edits and too many of them', () => {
    expect(caught(() => applyTextEdits('m.ts', text, [])).message).toMatch(/non-empty/);
    expect(caught(() => applyTextEdits('m.ts', text, [edit(2, 3, 2, 1, '')])).message).toMatch(/edit 1: the end \(2:1\) is before the start \(2:3\)/);
    expect(caught(() => applyTextEdits('m.ts', text, [edit(0, 0, 1, 0, '')])).message).toMatch(/start_line must be an integer ≥ 1/);
    expect(caught(() => applyTextEdits('m.ts', text, [{ ...edit(1, 0, 1, 0, ''), replacement: 3 as unknown as string }])).message).toMatch(/replacement must be a string/);
    expect(caught(() => applyTextEdits('m.ts', text, [edit(1, 0.5, 1, 1, '')])).code).toBe('PATCH_INVALID');
    const many = Array.from({ length: MAX_EDITS + 1 }, () => edit(1, 0, 1, 0, 'x'));
    expect(caught(() => applyTextEdits('m.ts', text, many))).toMatchObject({ code: 'TOO_LARGE', data: { count: MAX_EDITS + 1, maxEdits: MAX_EDITS } });
    expect(caught(() => applyTextEdits('m.ts', text, [edit(1, 0, 1, 0, 'x'.repeat(1_000_001))])).code).toBe('TOO_LARGE');
  });

  it('property: equals applying the edits one by one from the bottom up (naive oracle)', () => {
    const textArb = fc
      .tuple(fc.array(fc.constantFrom('a', 'bc', '', 'déf', '😀x', '  ', '{}'), { maxLength: 12 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
      .map(([lines, eol, final]) => lines.join(eol) + (final && lines.length > 0 ? eol : ''));
    fc.assert(
      fc.property(textArb, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('', 'X', 'yy', 'é')), { maxLength: 8 }), (t, raw) => {
        // legal offsets: not inside a surrogate pair, not between \r and \n
        const legal = [...Array(t.length + 1).keys()].filter((o) => !(o > 0 && o < t.length && ((t.charCodeAt(o) >= 0xdc00 && t.charCodeAt(o) <= 0xdfff) || (t[o] === '\n' && t[o - 1] === '\r'))));
        const ranges = raw.map(([x, y, r]) => {
          const a = legal[x % legal.length]!;
          const b = legal[y % legal.length]!;
          return { start: Math.min(a, b), end: Math.max(a, b), r };
        });
        // keep a non-overlapping subset; two insertions at one offset depend on the order given (tested above)
        const kept: typeof ranges = [];
        for (const g of [...ranges].sort((p, q) => p.start - q.start || p.end - q.end)) {
          const last = kept[kept.length - 1];
          const sameInsertion = last && g.start === g.end && last.start === g.start && last.end === g.end;
          if (!last || (g.start >= last.end && !sameInsertion)) kept.push(g);
        }
        fc.pre(kept.length > 0);
        const pos = (o: number): [number, number] => {
          const before = t.slice(0, o);
          const line = before.split('\n').length;
          return [line, o - (before.lastIndexOf('\n') + 1)];
        };
        const edits = kept.map((g) => {
          const [sl, sc] = pos(g.start);
          const [el, ec] = pos(g.end);
          return edit(sl, sc, el, ec, g.r);
        });
        let expected = t;
        for (const g of [...kept].reverse()) expected = expected.slice(0, g.start) + g.r + expected.slice(g.end);
        expect(applyTextEdits('p.txt', t, [...edits].reverse())).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
