import * as z from 'zod';
import type { Freshness, StatusReport } from '../index.js';
import { renderStatus } from './render/status-text.js';
import { defineTool, type ToolDefinition } from './tool.js';

const counts = z.record(z.string(), z.number());
const statusOutput = z.looseObject({
  root: z.string(),
  indexed: z.boolean(),
  files: z.number().int(),
  chunks: z.number().int(),
  symbols: z.number().int(),
  imports: z.number().int(),
  vectors: z.number().int(),
  languages: counts,
  content_types: counts,
  freshness: z.looseObject({ state: z.string(), last_pass_at: z.string().nullable(), indexing: z.boolean(), role: z.string(), pending_changes: z.number().int(), mode: z.string() }),
  capabilities: z.looseObject({ lexical: z.boolean(), symbols: z.boolean(), semantic: z.boolean(), semantic_reason: z.string(), rerank: z.string().nullable(), writes: z.string() }),
});

/** One language server's state in a word or a short sentence. */
function serverState(x: StatusReport['languageServers']['servers'][number]): string {
  if (x.state === 'running' || x.state === 'found') return x.state;
  return `${x.state}: ${x.reason ? `${x.reason}; ` : ''}install with ${x.hint ?? 'its package manager'}`;
}

/** How the index is kept fresh, in words. */
function mode(f: Freshness): string {
  if (f.role === 'writer' && f.watcher) return f.watcher.backend === 'poll' ? `this server rescans the files every so often (polling${f.watcher.fallbackReason ? `: ${f.watcher.fallbackReason}` : ''})` : 'this server watches the files and indexes changes as they happen';
  if (f.role === 'writer') return 'this server indexed on start and takes index requests; it does not watch files';
  if (f.writer?.role === 'watch') return `pid ${f.writer.pid} watches the files and writes the index${f.role === 'reader' ? '; this server takes over if it exits' : ''}`;
  if (f.writer) return `pid ${f.writer.pid} is running an index pass`;
  return 'on demand (scry index)';
}

/** The freshness section of index_status: state, who writes, what is pending, the last pass. */
function freshnessData(lastPassAt: string | null, chunkerCurrent: boolean, f: Freshness): Record<string, unknown> {
  return {
    state: f.state,
    last_pass_at: lastPassAt,
    chunker_current: chunkerCurrent,
    indexing: f.state === 'indexing',
    writer_pid: f.writer?.pid ?? null,
    role: f.role,
    pending_changes: f.pendingChanges,
    rescan_pending: f.rescanPending,
    ...(f.progress ? { progress: { phase: f.progress.phase, files_done: f.progress.filesDone, files_total: f.progress.filesTotal } } : {}),
    ...(f.lastPass ? { last_pass: { reason: f.lastPass.reason, at: f.lastPass.at, duration_ms: f.lastPass.durationMs, files_indexed: f.lastPass.filesIndexed, files_removed: f.lastPass.filesRemoved } } : {}),
    ...(f.lastError ? { last_error: f.lastError } : {}),
    ...(f.watcher ? { watcher: { backend: f.watcher.backend, watches: f.watcher.watches, ...(f.watcher.fallbackReason ? { fallback_reason: f.watcher.fallbackReason } : {}) } } : {}),
    mode: mode(f),
  };
}

const indexStatus = defineTool({
  name: 'index_status',
  title: 'Index status',
  description:
    'What the index holds and whether it is fresh: files, chunks, symbols, vectors, languages, last pass, and which capabilities are live (lexical, semantic, rerank, writes). ' +
    'Call it first when results look stale or empty. Example: {}',
  input: {},
  readOnly: true,
  output: statusOutput,
  render: renderStatus,
  handler: async (_args, ctx) => {
    const s = ctx.engine.status();
    const f = ctx.engine.freshness();
    const rerank = ctx.engine.config.rerank.provider;
    const data = {
      root: s.root,
      indexed: s.indexed,
      files: s.files,
      chunks: s.chunks,
      symbols: s.structure.symbols,
      imports: s.structure.imports,
      vectors: s.embeddings?.covered ?? 0,
      languages: s.languages,
      content_types: s.contentTypes,
      freshness: freshnessData(s.lastPassAt, s.featureVersionCurrent, f),
      capabilities: {
        lexical: s.capabilities.lexical,
        symbols: s.structure.symbols > 0,
        semantic: s.capabilities.semantic,
        semantic_reason: s.capabilities.semanticReason,
        rerank: rerank === 'none' ? null : rerank,
        writes: ctx.writePolicy,
        // optional model runtimes installed beside scry (issue 24)
        runtimes: Object.fromEntries(s.runtimes.map((r) => [r.name, r.installed])),
      },
      // language servers (issue 21), only when lsp.enabled: each found, running, failed (reason) or missing (install hint)
      ...(s.languageServers.enabled ? { language_servers: Object.fromEntries(s.languageServers.servers.map((x) => [x.name, serverState(x)])) } : {}),
    };
    const warnings = s.indexed ? [] : ['no index yet: it is being built, or run `scry index`'];
    return { data, warnings };
  },
});

export const statusTools: readonly ToolDefinition[] = [indexStatus];
