import type { ConfigOutput } from './schema.js';

/**
 * The defaults, as plain data: when there is no config file and no override, nothing needs
 * validating and zod is never loaded (it costs about 90 ms of CLI start-up). A test asserts that
 * `configSchema.parse({})` equals this object, so the two cannot drift.
 */
export const DEFAULT_CONFIG: ConfigOutput = {
  maxFileBytes: 1_000_000,
  ignore: [],
  denylist: { add: [], remove: [] },
  syntax: true,
  parseTimeoutMs: 30_000,
  chunk: { windowLines: 60, overlapLines: 8, maxBytes: 4096 },
  documents: { maxBytes: 50_000_000, html: 'source' },
  search: { limit: 10, weights: { stem: 6, path: 2, symbol: 5, signature: 2, body: 1, parts: 0.6, doc: 1 }, ranking: { queryWeights: true, hyphenJoined: true, longTerms: { title: 1, code: 1, repeated: 0, fences: false, codeDefined: false, metaWords: false, frames: false, fileWeights: true, maxGroups: 40, maxDfRatio: 0.2, rareRatio: 0, selectByWeight: false }, definitionBoost: 1.25, testToSource: 0.5, nonCode: 0.5, nonDefinition: 1, fileSupport: 0.2, fileCap: 0, fileCapWithin: 0, fileCapSpread: 0, fileDecay: 0.95, fileBlend: 0, fileScore: 0, mentionBoost: 0, fileRanker: false, companionBoost: 0, companionAnchors: 3, recency: 0, recencyHalfLifeDays: 180, learned: false, expansion: 0, byKind: { long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1 } } }, mode: 'auto', fusion: { k: 60, lexical: 1, vector: 1, symbol: 1, depth: 50, fileCap: 3, blend: 0.3, blendNames: 0.5, blendNameDepth: 0, blendFileDepth: 0, blendFileExpression: 'main', blendByKind: {}, filePrior: { long: 0.3 }, filePriorPool: 100, filePriorRecall: 0, filePriorRecallAt: 0, filePriorTop: 1, filePriorPieces: 'mean' } },
  rerank: { provider: 'none', maxCandidates: 10, timeoutMs: 5000 },
  embed: {
    provider: 'builtin',
    ollama: { baseUrl: 'http://127.0.0.1:11434', model: 'nomic-embed-text' },
    batchSize: 32,
    timeoutMs: 30_000,
    retries: 3,
    queryTimeoutMs: 5000,
    storage: 'int8',
    maxChars: 6000,
  },
  models: { hubUrl: 'https://huggingface.co' },
  watch: { backend: 'auto', debounceMs: 500, maxBatchWaitMs: 2000, stormPaths: 1000, pollIntervalMs: 30_000 },
  lsp: { enabled: false, servers: {}, idleMs: 300_000, timeoutMs: 10_000, maxMemoryMb: 2048 },
  lockTimeoutMs: 30_000,
};
