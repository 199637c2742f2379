import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';

// A red pin means "be deliberate": change the public surface on purpose, then update this list.
describe('public API pin', () => {
  it('exports exactly these runtime values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'CONTEXT_TASKS', 'DECODING_PRESETS', 'DEFAULT_ALLOCATIONS', 'DEFAULT_BUDGET', 'DEFAULT_FIM_TOKENS', 'EMBED_PROVIDERS', 'ERROR_CODES', 'EngineError', 'MARK_CLOSE', 'MARK_OPEN', 'MAX_QUERY_BYTES', 'PROJECT_COLLECTION', 'RRF_K', 'SYSTEM_PROMPT', 'TASK_STRATEGIES', 'TOOL_NUDGE', 'addCollection', 'buildContextPack', 'checkContextRequest', 'checkReferenceRequest', 'checkSearchRequest', 'checkSymbolRequest', 'collectionTypes', 'createEmbeddingProvider', 'createEngine', 'detectIndent', 'estimateTokens', 'fingerprintKey', 'formatSymbolId', 'fuseRrf', 'isEngineError', 'listCollections', 'listModels', 'loadTokenCounter', 'mapFailures', 'mergeCollectionHits', 'mergeEvidence', 'openCollection', 'parseFailure', 'parseSubQueries', 'parseSymbolId', 'pullModel', 'removeCollection', 'removeModel', 'renameCollection', 'renderExplainDiagnosticPrompt', 'renderFimPrompt', 'renderRefactorPrompt', 'renderRepoQaPrompt', 'renderSystemPrompt', 'resolveModelsConfig', 'searchCollections',
      'terminalPreferences', 'verifyModel',
    ]);
  });

  it('exports exactly these types, by name, with no wildcard re-exports', () => {
    const source = readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/export \*/);
    const types = [...source.matchAll(/export type \{([^}]+)\}/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim())).filter(Boolean).sort();
    expect(types).toEqual([
      'AddCollectionOptions', 'Allocations', 'AppliedChange', 'ApplyChangeOptions', 'ArtifactInput', 'ChangeRequest', 'ChangedFile', 'ChatPrompt', 'ChatPromptOptions', 'ChunkKind', 'Clock', 'CollectionEntry', 'CollectionHits', 'CollectionInfo', 'CollectionMember', 'CollectionResult', 'CollectionSearchMeta', 'CollectionSearchResponse', 'CollectionsLocation', 'ConfigInput', 'ContentType', 'ContextOptions', 'ContextPack', 'ContextPackInput', 'ContextPackOptions', 'ContextTask', 'Contribution', 'CurrentFile', 'DecodingPreset', 'DecodingTask', 'Diagnostic', 'DiagnosticsOptions', 'DiagnosticsReport', 'DirectoryTotal', 'DryRunReport', 'EmbedProgress', 'EmbedProviderName', 'EmbedPurpose', 'EmbedReport', 'EmbedRequestOptions', 'EmbeddingProvider', 'Engine', 'EngineOptions', 'ErrorCode', 'Evidence', 'EvidenceInput', 'EvidenceKind', 'EvidencePiece', 'EvidenceSource', 'ExplainDiagnosticInput', 'FailureItem', 'FailureKind', 'FailureTool', 'FallbackReason', 'FileDiagnostic', 'FileListing', 'FileOutline', 'FileSlice', 'FileStatus', 'FimKept', 'FimPrompt', 'FimPromptInput', 'FimTokens', 'Freshness', 'FusedItem', 'FusionTrace', 'HistoryEntry', 'ImportKind', 'ImportRow', 'IndentStyle', 'IndexOptions', 'IndexPhase', 'IndexProgress', 'IndexReport', 'IndexWatch', 'InstalledModel', 'LanguageServerStatus', 'LastPass', 'ListFilesOptions', 'ListedFile', 'Logger', 'ManifestFile', 'MappedFailures', 'MergeEvidenceOptions', 'MergedCollections', 'MergedEvidence', 'MintTokenOptions', 'ModelFingerprint', 'ModelManifest', 'ModelProblem', 'ModelProblemKind', 'ModelVerification', 'ModelsLocation', 'OmitReason', 'OmittedItem', 'OpenCollectionOptions', 'PackSections', 'ParsedSymbolId', 'PassReason', 'PromptDiagnostic', 'ProposedChange', 'PullModelOptions', 'PullProgress', 'PullResult', 'RankedList', 'ReadFileOptions', 'RefactorInput', 'Reference', 'ReferenceGroup', 'ReferenceKind', 'ReferenceOptions', 'ReferencesResult', 'RelatedFile', 'RelatedFiles', 'RelatedOptions', 'RelatedRelations', 'RemovedModel', 'RepoMap', 'RepoMapFile', 'RepoMapOptions', 'RepoMapRole', 'RepoMapSymbol', 'RepoQaInput', 'ResolvedImport', 'RuntimeStatus', 'SearchMeta', 'SearchMode', 'SearchOptions', 'SearchResponse', 'SearchResult', 'SectionName', 'SemanticStatus', 'SimilarOptions', 'SkipReason', 'StatusReport', 'StrategyStep', 'SubQueries', 'SymbolDefinition', 'SymbolHit', 'SymbolKind', 'SymbolLookupOptions', 'SymbolMatch', 'SymbolOptions', 'SymbolRow', 'SymbolSearchResult', 'TaskContext', 'TaskSpec', 'TerminalPreferences', 'TextEdit', 'TextMatch', 'TextSearchOptions', 'TextSearchResult', 'TokenCounter', 'ToolCallStyle', 'WatchEvent', 'WatchOptions', 'WatcherInfo', 'WorkspaceInput',
    ]);
  });

  it('package.json exposes the bin and the library entry point', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.name).toBe('scry');
    expect(pkg.bin).toEqual({ scry: 'bin/scry.js' });
    expect(pkg.exports['.'].import).toBe('./dist/index.js');
    expect(pkg.engines.node).toBe('>=20.19 <21 || >=22 <23'); // what CI runs the suite on (.ci/run)
  });
});
