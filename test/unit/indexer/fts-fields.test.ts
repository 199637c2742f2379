import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkFields, definesOf, fileFields, splitDoc, storedDefines, storedDocSpans } from '../../../src/indexer/fts-fields.js';

const file = fileFields('src/config/loader.ts');
const text = 'export const loadConfigFile = (path: string) => readJsonFile(path);\nexport const parseConfig = 1;\n';

describe('the names a chunk defines, as a chunk row stores them', () => {
  it('stores nothing when the names are just the symbol, or none', () => {
    expect(storedDefines({ symbol: 'loadConfigFile', defines: ['loadConfigFile'] })).toBe('');
    expect(storedDefines({ symbol: 'loadConfigFile', defines: [] })).toBe('');
    expect(storedDefines({ symbol: 'loadConfigFile' })).toBe('');
    expect(storedDefines({})).toBe('');
  });

  it('front-codes key paths that share a prefix with the symbol and each other', () => {
    const defines = ['packages.node_modules/@angular/core', 'packages.node_modules/@angular/core.version', 'packages.node_modules/@angular/core.license'];
    const stored = storedDefines({ symbol: 'packages.node_modules/@angular/core', defines });
    expect(stored).toBe('[35,"",35,".version",36,"license"]');
    expect(definesOf(stored, 'packages.node_modules/@angular/core')).toEqual(defines);
  });

  it('a chunk row gives back exactly the FTS fields of the draft it was written from (property)', () => {
    const name = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('parseConfig', 'parse_config', 'a.b.c', 'a.b.d', '\ud83d', ''));
    const draft = fc.record(
      { symbol: fc.option(name, { nil: undefined }), container: fc.option(name, { nil: undefined }), signature: fc.option(name, { nil: undefined }), defines: fc.option(fc.array(name, { maxLength: 8 }), { nil: undefined }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(draft, (d) => {
        const chunk = { ...d, startLine: 1, endLine: 2 };
        const row = { startLine: 1, endLine: 2, symbol: d.symbol ?? null, container: d.container ?? null, signature: d.signature ?? null };
        const fromRow = chunkFields(file, { ...row, defines: definesOf(storedDefines(chunk), row.symbol) }, text);
        expect(fromRow).toEqual(chunkFields(file, chunk, text));
      }),
      { numRuns: 500 },
    );
  });
});

describe('comments and docstrings: the doc field, out of body', () => {
  const src = Buffer.from('/** Loads ✓ it. */\nexport function load() {\n  return 1; // one\n}\n');
  const docs: Array<[number, number]> = [
    [0, Buffer.byteLength('/** Loads ✓ it. */')],
    [src.indexOf('// one'), src.indexOf('// one') + 6],
  ];

  it('stores spans relative to the chunk, clipped to it, and splits the chunk into body and doc', () => {
    expect(storedDocSpans(docs, 0, src.length)).toBe(`0-${docs[0]![1]},${docs[1]![0]}-${docs[1]![1]}`);
    expect(storedDocSpans(docs, 4, 10)).toBe('0-6');
    expect(storedDocSpans(docs, docs[0]![1], docs[1]![0])).toBe('');
    expect(storedDocSpans(undefined, 0, 10)).toBe('');
    const { body, doc } = splitDoc(src, storedDocSpans(docs, 0, src.length));
    expect(doc).toBe('/** Loads ✓ it. */\n// one');
    expect(body).toBe(' \nexport function load() {\n  return 1;  \n}\n');
    expect(splitDoc(src, '')).toEqual({ body: src.toString('utf8'), doc: '' });
  });

  it('body and doc together hold every byte of the chunk, each span once (property)', () => {
    const input = fc
      .tuple(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }), fc.nat(), fc.nat())
      .map(([text, pairs, a, b]) => {
        // ranges on code point boundaries, as a parser gives them: sorted, disjoint
        const chars = [...text];
        const cuts = [...new Set(pairs.flat().map((n) => n % (chars.length + 1)))].sort((x, y) => x - y);
        const bytesAt = (i: number): number => Buffer.byteLength(chars.slice(0, i).join(''));
        const ranges: Array<[number, number]> = [];
        for (let i = 0; i + 1 < cuts.length; i += 2) ranges.push([bytesAt(cuts[i]!), bytesAt(cuts[i + 1]!)]);
        const [s, e] = [a % (chars.length + 1), b % (chars.length + 1)].sort((x, y) => x - y);
        return { text, ranges, start: bytesAt(s!), end: bytesAt(e!) };
      });
    fc.assert(
      fc.property(input, ({ text, ranges, start, end }) => {
        const bytes = Buffer.from(text).subarray(start, end);
        const spans = storedDocSpans(ranges, start, end);
        const { body, doc } = splitDoc(bytes, spans);
        const k = spans ? spans.split(',').length : 0;
        // k spans joined by k − 1 newlines; k + 1 gaps joined by k spaces
        expect(Buffer.byteLength(body) + Buffer.byteLength(doc)).toBe(bytes.length + (k === 0 ? 0 : 2 * k - 1));
        for (const [s, e] of ranges) {
          const piece = Buffer.from(text).subarray(Math.max(s, start), Math.min(e, end)).toString('utf8');
          if (piece) expect(doc).toContain(piece);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on a malformed stored span list (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.string(), (raw, spans) => {
        const out = splitDoc(Buffer.from(raw), spans);
        expect(typeof out.body).toBe('string');
        expect(typeof out.doc).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});
