import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';

// A red pin means "be deliberate": change the public surface on purpose, then update this list.
describe('public API pin', () => {
  it('exports exactly these runtime values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'ERROR_CODES', 'EngineError', 'MARK_CLOSE', 'MARK_OPEN', 'MAX_QUERY_BYTES', 'createEngine', 'estimateTokens', 'formatSymbolId', 'isEngineError',
      'loadTokenCounter', 'parseSymbolId',
    ]);
  });

  it('exports exactly these types, by name, with no wildcard re-exports', () => {
    const source = readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/export \*/);
    const types = [...source.matchAll(/export type \{([^}]+)\}/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim())).filter(Boolean).sort();
    expect(types).toEqual([
      'AppliedChange', 'ApplyChangeOptions', 'ChangeRequest', 'ChangedFile', 'ChunkKind', 'Clock', 'ConfigInput',
      'ContentType', 'DirectoryTotal', 'DryRunReport', 'Engine', 'EngineOptions', 'ErrorCode', 'FallbackReason',
      'FileListing', 'FileOutline', 'FileSlice', 'FileStatus', 'Freshness', 'ImportKind', 'ImportRow', 'IndexOptions',
      'IndexPhase', 'IndexProgress', 'IndexReport', 'IndexWatch', 'LastPass', 'ListFilesOptions', 'ListedFile', 'Logger', 'MintTokenOptions',
      'ParsedSymbolId', 'PassReason', 'ProposedChange', 'ReadFileOptions', 'Reference', 'ReferenceGroup', 'ReferenceKind',
      'ReferenceOptions', 'ReferencesResult', 'ResolvedImport', 'SearchMeta', 'SearchOptions', 'SearchResponse',
      'SearchResult', 'SimilarOptions', 'SkipReason', 'StatusReport', 'SymbolDefinition', 'SymbolHit', 'SymbolKind',
      'SymbolMatch', 'SymbolOptions', 'SymbolRow', 'TextEdit', 'TextMatch', 'TextSearchOptions', 'TextSearchResult',
      'TokenCounter', 'WatchEvent', 'WatchOptions', 'WatcherInfo',
    ]);
  });

  it('package.json exposes the bin and the library entry point', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.name).toBe('scry');
    expect(pkg.bin).toEqual({ scry: 'bin/scry.js' });
    expect(pkg.exports['.'].import).toBe('./dist/index.js');
    expect(pkg.engines.node).toMatch(/>=20/);
  });
});
