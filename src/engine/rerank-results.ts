import type { Clock, Logger } from '../core/logger.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Reranker } from '../rerank/reranker.js';
import type { RerankMeta, SearchResult } from '../search/search-result.js';

/** The configured reranker (config `rerank`), or undefined for `none`. Its model and sockets load only when called. */
export async function createConfiguredReranker(config: ResolvedConfig, clock: Clock, logger: Logger): Promise<Reranker | undefined> {
  const r = config.rerank;
  if (r.provider === 'llm' && r.llm) {
    const { createLlmReranker } = await import('../rerank/llm-reranker.js');
    const key = config.rerankApiKey();
    const env = r.llm.apiKeyEnv && key ? { [r.llm.apiKeyEnv]: key } : {};
    return createLlmReranker({ endpoint: r.llm, maxCandidates: r.maxCandidates, timeoutMs: r.timeoutMs }, { clock, env });
  }
  if (r.provider === 'cross-encoder' && r.crossEncoder) {
    const { createCrossEncoderReranker } = await import('../rerank/cross-encoder.js');
    const { loadOnnxRuntime } = await import('../embed/runtimes.js');
    return createCrossEncoderReranker({ ...r.crossEncoder, maxCandidates: r.maxCandidates, timeoutMs: r.timeoutMs, clock, logger, loadRuntime: () => loadOnnxRuntime() });
  }
  return undefined;
}

/** Reorders the first `maxCandidates` results by the model's scores; the rest follow unchanged. */
export async function rerankResults(
  reranker: Reranker,
  maxCandidates: number,
  query: string,
  results: readonly SearchResult[],
  texts: ReadonlyMap<string, string>,
  signal: AbortSignal | undefined,
): Promise<{ results: SearchResult[]; rerank: RerankMeta }> {
  const head = results.slice(0, maxCandidates);
  // identical text may sit in two files, so the id is the chunk's content hash and its place
  const idOf = (r: SearchResult): string => `${r.chunkHash}@${r.path}:${r.startLine}`;
  const candidates = head.map((r) => ({ id: idOf(r), path: r.path, startLine: r.startLine, endLine: r.endLine, text: texts.get(r.chunkHash) ?? r.snippet }));
  const outcome = await reranker.rerank(query, candidates, { signal });
  const byId = new Map(head.map((r) => [idOf(r), r]));
  const reordered = outcome.order.map((id) => {
    const r = byId.get(id)!;
    const s = outcome.scores.get(id);
    if (s === undefined) return r;
    return { ...r, rerankScore: s, ...(r.why ? { why: [...r.why, `${reranker.name} ${reranker.model}: ${s}`] } : {}) };
  });
  const rerank: RerankMeta = {
    provider: reranker.name,
    model: reranker.model,
    candidates: head.length,
    scored: outcome.scores.size,
    cached: outcome.cached,
    skipped: outcome.skipped ?? null,
    tookMs: outcome.tookMs,
  };
  return { results: [...reordered, ...results.slice(head.length)], rerank };
}
