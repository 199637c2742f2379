import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkFields, definesOf, fileFields, storedDefines } from '../../../src/indexer/fts-fields.js';

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
