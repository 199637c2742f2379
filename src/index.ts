// The public library API of scry. Any new export added here becomes public API: named exports
// only, and the export list is pinned by test/unit/public-api.test.ts.
export { createEngine } from './engine/engine.js';
export type { Engine, EngineOptions, IndexOptions, SearchOptions, SymbolOptions, ReferenceOptions, WatchOptions, IndexWatch } from './engine/engine-api.js';
export type { Freshness, LastPass, PassReason, WatcherInfo } from './freshness/freshness.js';
export type { WatchEvent } from './freshness/keeper.js';
export type { StatusReport } from './engine/status.js';
export type { RuntimeStatus } from './embed/runtimes.js';
// Argument checks to run before opening or building an index (issue 24): the Engine's own validators.
export { checkSearchRequest, checkSymbolRequest, checkReferenceRequest, checkContextRequest } from './engine/request-checks.js';
export { EngineError, ERROR_CODES, isEngineError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export type { ContentType, SkipReason } from './core/file.js';
export type { ChunkKind, FallbackReason } from './core/chunk.js';
export type { SymbolKind, ImportKind } from './core/symbol.js';
export type { SymbolHit, SymbolMatch } from './search/symbol-search.js';
export type { ReferencesResult, ReferenceGroup, Reference, ReferenceKind } from './search/references.js';
export type { FileOutline, ResolvedImport } from './search/outline.js';
export type { RelatedFile, RelatedFiles, RelatedOptions, RelatedRelations } from './search/related.js';
export type { SymbolRow, ImportRow } from './store/structure-repo.js';
export type { Logger, Clock } from './core/logger.js';
export type { ConfigInput } from './config/schema.js';
export { terminalPreferences } from './config/terminal.js';
export type { TerminalPreferences } from './config/terminal.js';
export type { IndexReport } from './indexer/index-report.js';
export type { IndexProgress, IndexPhase } from './indexer/progress.js';
export type { DryRunReport, DirectoryTotal } from './indexer/dry-run.js';
export type { SearchResponse, SearchResult, SearchMeta } from './search/search-result.js';
export { MARK_OPEN, MARK_CLOSE } from './search/snippet.js';
export { MAX_QUERY_BYTES } from './search/query-parse.js';
export type { ListFilesOptions, FileListing, SimilarOptions, SymbolDefinition, SymbolLookupOptions, DiagnosticsOptions } from './engine/engine-api.js';
// Language servers (issue 21): diagnostics, and definitions and references by type.
export type { DiagnosticsReport } from './engine/lsp-layer.js';
export type { FileDiagnostic } from './lsp/lsp-queries.js';
export type { LanguageServerStatus } from './lsp/lsp-pool.js';
export type { ReadFileOptions, FileSlice } from './workspace/files.js';
export type { ListedFile } from './store/file-repo.js';
export { formatSymbolId, parseSymbolId } from './search/symbol-id.js';
export type { ParsedSymbolId } from './search/symbol-id.js';
export { loadTokenCounter, estimateTokens } from './context/tokens.js';
export type { TokenCounter } from './context/tokens.js';
export type { ApplyChangeOptions, MintTokenOptions } from './engine/engine-api.js';
export type { ChangeRequest, ProposedChange, AppliedChange, ChangedFile } from './workspace/change.js';
export type { TextEdit } from './workspace/text-edits.js';
export type { FileStatus } from './workspace/unified-diff.js';
export type { TextSearchOptions, TextSearchResult, TextMatch } from './search/text-search.js';
export type { RepoMapOptions, ContextOptions, TaskContext } from './engine/engine-api.js';
export type { RepoMap, RepoMapFile, RepoMapSymbol, RepoMapRole } from './context/repo-map.js';
export { buildContextPack, DEFAULT_ALLOCATIONS, DEFAULT_BUDGET } from './context/context-pack.js';
export type { Allocations, ContextPack, ContextPackInput, ContextPackOptions, OmittedItem, OmitReason } from './context/context-pack.js';
export { mergeEvidence } from './context/evidence-merge.js';
export type { EvidenceInput, EvidenceKind, EvidencePiece, MergedEvidence, MergeEvidenceOptions } from './context/evidence-merge.js';
export type { TaskSpec, Diagnostic, CurrentFile, WorkspaceInput, ArtifactInput, HistoryEntry, PackSections, SectionName } from './context/pack-sections.js';
export { renderFimPrompt, DEFAULT_FIM_TOKENS } from './context/fim-prompt.js';
export type { FimPromptInput, FimPrompt, FimTokens, FimKept } from './context/fim-prompt.js';
export { renderSystemPrompt, renderRepoQaPrompt, renderExplainDiagnosticPrompt, renderRefactorPrompt, SYSTEM_PROMPT, TOOL_NUDGE } from './context/prompt-templates.js';
export type { ChatPrompt, ChatPromptOptions, RepoQaInput, ExplainDiagnosticInput, RefactorInput, PromptDiagnostic, ToolCallStyle } from './context/prompt-templates.js';
export { DECODING_PRESETS } from './context/decoding-presets.js';
export type { DecodingPreset, DecodingTask } from './context/decoding-presets.js';
export { detectIndent } from './context/indent-style.js';
export type { IndentStyle } from './context/indent-style.js';
// Local models (issue 8): the model cache behind `scry models`. pullModel is the only code path
// in scry that downloads a model; index and search only read what a pull left.
export { listModels, pullModel, verifyModel, removeModel, resolveModelsConfig } from './embed/model-store.js';
export type { InstalledModel, ModelVerification, PullModelOptions, PullProgress, PullResult, RemovedModel, ModelsLocation } from './embed/model-store.js';
export type { ModelManifest, ManifestFile, ModelProblem, ModelProblemKind } from './embed/model-manifest.js';
// The semantic layer (issue 8): embedding providers, vectors, hybrid search.
export { RRF_K, fuseRrf } from './search/fusion.js';
export type { RankedList, Contribution, FusedItem } from './search/fusion.js';
export { parseSubQueries } from './search/sub-queries.js';
export type { SubQueries } from './search/sub-queries.js';
export type { SearchMode, FusionTrace } from './search/search-result.js';
export { createEmbeddingProvider } from './embed/create-provider.js';
export { fingerprintKey, EMBED_PROVIDERS } from './embed/provider.js';
export type { EmbeddingProvider, EmbedProviderName, ModelFingerprint, EmbedPurpose, EmbedRequestOptions } from './embed/provider.js';
export type { EmbedProgress, EmbedReport } from './indexer/embed-pass.js';
export type { SemanticStatus } from './engine/status.js';
