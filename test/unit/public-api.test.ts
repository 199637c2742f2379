import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';

// A red pin means "be deliberate": change the public surface on purpose, then update this list.
describe('public API pin', () => {
  it('exports exactly these runtime values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'DECODING_PRESETS', 'DEFAULT_ALLOCATIONS', 'DEFAULT_BUDGET', 'DEFAULT_FIM_TOKENS', 'ERROR_CODES',
      'EngineError', 'MARK_CLOSE', 'MARK_OPEN', 'MAX_QUERY_BYTES', 'SYSTEM_PROMPT', 'TOOL_NUDGE',
      'buildContextPack', 'createEngine', 'detectIndent', 'estimateTokens', 'formatSymbolId', 'isEngineError',
      'loadTokenCounter', 'mergeEvidence', 'parseSymbolId', 'renderExplainDiagnosticPrompt', 'renderFimPrompt',
      'renderRefactorPrompt', 'renderRepoQaPrompt', 'renderSystemPrompt',
    ]);
  });

  it('exports exactly these types, by name, with no wildcard re-exports', () => {
    const source = readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/export \*/);
    const types = [...source.matchAll(/export type \{([^}]+)\}/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim())).filter(Boolean).sort();
    expect(types).toEqual([
      'Allocations', 'AppliedChange', 'ApplyChangeOptions', 'ArtifactInput', 'ChangeRequest', 'ChangedFile',
      'ChatPrompt', 'ChatPromptOptions', 'ChunkKind', 'Clock', 'ConfigInput', 'ContentType', 'ContextOptions', 'ContextPack',
      'ContextPackInput', 'ContextPackOptions', 'CurrentFile', 'DecodingPreset', 'DecodingTask', 'Diagnostic',
      'DirectoryTotal', 'DryRunReport', 'Engine', 'EngineOptions', 'ErrorCode', 'EvidenceInput', 'EvidenceKind',
      'EvidencePiece', 'ExplainDiagnosticInput', 'FallbackReason', 'FileListing', 'FileOutline', 'FileSlice',
      'FileStatus', 'FimKept', 'FimPrompt', 'FimPromptInput', 'FimTokens', 'Freshness', 'HistoryEntry',
      'ImportKind', 'ImportRow', 'IndentStyle', 'IndexOptions', 'IndexPhase', 'IndexProgress', 'IndexReport',
      'IndexWatch', 'LastPass', 'ListFilesOptions', 'ListedFile', 'Logger', 'MergeEvidenceOptions',
      'MergedEvidence', 'MintTokenOptions', 'OmitReason', 'OmittedItem', 'PackSections', 'ParsedSymbolId',
      'PassReason', 'PromptDiagnostic', 'ProposedChange', 'ReadFileOptions', 'RefactorInput', 'Reference',
      'ReferenceGroup', 'ReferenceKind', 'ReferenceOptions', 'ReferencesResult', 'RelatedFile', 'RelatedFiles',
      'RelatedOptions', 'RelatedRelations', 'RepoMap', 'RepoMapFile',
      'RepoMapOptions', 'RepoMapRole', 'RepoMapSymbol', 'RepoQaInput', 'ResolvedImport', 'SearchMeta',
      'SearchOptions', 'SearchResponse', 'SearchResult', 'SectionName', 'SimilarOptions', 'SkipReason',
      'StatusReport', 'SymbolDefinition', 'SymbolHit', 'SymbolKind', 'SymbolMatch', 'SymbolOptions', 'SymbolRow',
      'TaskContext', 'TaskSpec', 'TextEdit', 'TextMatch', 'TextSearchOptions', 'TextSearchResult', 'TokenCounter',
      'ToolCallStyle', 'WatchEvent', 'WatchOptions', 'WatcherInfo', 'WorkspaceInput',
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
