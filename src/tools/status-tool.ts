import { defineTool, type ToolDefinition } from './tool.js';

const indexStatus = defineTool({
  name: 'index_status',
  title: 'Index status',
  description:
    'What the index holds and whether it is fresh: files, chunks, symbols, vectors, languages, last pass, and which capabilities are live (lexical, semantic, rerank, writes). ' +
    'Call it first when results look stale or empty. Example: {}',
  input: {},
  readOnly: true,
  handler: async (_args, ctx) => {
    const s = ctx.engine.status();
    const host = ctx.freshness?.();
    const rerank = ctx.engine.config.rerank.provider;
    const data = {
      root: s.root,
      indexed: s.indexed,
      files: s.files,
      chunks: s.chunks,
      symbols: s.structure.symbols,
      imports: s.structure.imports,
      vectors: 0,
      languages: s.languages,
      content_types: s.contentTypes,
      freshness: {
        last_pass_at: s.lastPassAt,
        chunker_current: s.featureVersionCurrent,
        indexing: host?.indexing ?? s.writer !== null,
        writer_pid: s.writer?.pid ?? null,
        ...(host?.lastRefreshAt !== undefined ? { last_refresh_at: host.lastRefreshAt } : {}),
        ...(host?.lastError ? { last_error: host.lastError } : {}),
        mode: host?.mode ?? 'on demand (scry index)',
      },
      capabilities: {
        lexical: s.capabilities.lexical,
        symbols: s.structure.symbols > 0,
        semantic: s.capabilities.semantic,
        semantic_reason: s.capabilities.semanticReason,
        rerank: rerank === 'none' ? null : rerank,
        writes: ctx.writePolicy,
      },
    };
    const warnings = s.indexed ? [] : ['no index yet: it is being built, or run `scry index`'];
    return { data, warnings };
  },
});

export const statusTools: readonly ToolDefinition[] = [indexStatus];
