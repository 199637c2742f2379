import * as z from 'zod';
import { serveSchema } from './serve.js';

/** Chunking knobs for the line-window and markdown chunkers. */
export const chunkSchema = z
  .object({
    /** Lines per window chunk. Range 10–400; default 60 (≈ 200–800 tokens of code). */
    windowLines: z.number().int().min(10).max(400).default(60),
    /** Lines shared by consecutive windows. Range 0–windowLines/2; default 8. */
    overlapLines: z.number().int().min(0).max(200).default(8),
    /** Hard byte clamp per chunk; long lines are cut at this size. Range 512–65536; default 4096. */
    maxBytes: z.number().int().min(512).max(65536).default(4096),
    /**
     * Code chunked by syntax: two adjacent definitions share one chunk only while the first part
     * is under this many bytes (the rest of the rules in docs/DESIGN.md "AST chunks"). 0 keeps
     * every definition its own chunk. Range 0–65536; default maxBytes / 5.
     */
    mergeDefinitions: z.number().int().min(0).max(65536).optional(),
    /**
     * Where comments inside a function or method body go: `doc` (the FTS `doc` field, with doc
     * comments and docstrings) or `body` (with the code around them). Default `doc`.
     */
    inlineComments: z.enum(['doc', 'body']).optional(),
  })
  .strict()
  .refine((c) => c.overlapLines * 2 <= c.windowLines, { message: 'overlapLines must be at most half of windowLines', path: ['overlapLines'] });

/** BM25 column weights: how much a hit in each FTS field counts. All ≥ 0. */
export const weightsSchema = z
  .object({
    /** File stem (basename without extension). Default 6. */
    stem: z.number().min(0).max(100).default(6),
    /** Directory and file path words. Default 2. */
    path: z.number().min(0).max(100).default(2),
    /** Symbol or heading name of the chunk. Default 5. */
    symbol: z.number().min(0).max(100).default(5),
    /** Declaration head of the chunk's symbol: parameter and type names. Default 2. */
    signature: z.number().min(0).max(100).default(2),
    /** The chunk text, identifiers kept whole. Default 1. */
    body: z.number().min(0).max(100).default(1),
    /** Sub-words of compound identifiers (camelCase, snake_case...). Default 0.6. */
    parts: z.number().min(0).max(100).default(0.6),
    /** Comments and docstrings of the chunk (taken out of `body`). Default 1: weighed as `body` was. */
    doc: z.number().min(0).max(100).default(1),
  })
  .strict();

/** An OpenAI-compatible or Ollama chat endpoint the LLM reranker talks to (the only host it contacts). */
export const llmEndpointSchema = z
  .object({
    /** `openai`: POST {baseUrl}/chat/completions; `ollama`: POST {baseUrl}/api/chat. */
    api: z.enum(['openai', 'ollama']),
    /** e.g. `http://127.0.0.1:11434` (Ollama) or `http://localhost:8080/v1` (OpenAI-compatible). */
    baseUrl: z.string().url(),
    /** Model name as the endpoint knows it. */
    model: z.string().min(1),
    /** Name of the environment variable holding the API key (sent as a Bearer token); never the key itself. */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
    /** Requests in flight at once. Range 1–16; default 4. */
    concurrency: z.number().int().min(1).max(16).default(4),
    /** How long a score stays cached, keyed by (query, chunk, model). Range 0–1 day; default 5 minutes. */
    cacheTtlMs: z.number().int().min(0).max(86_400_000).default(300_000),
  })
  .strict();

/**
 * The chat model of `scry ask` and `scry complete` (issue 20): an endpoint as in `rerank.llm`, plus
 * how tools are offered and the limits of one run. The only host those commands contact.
 */
export const llmSchema = llmEndpointSchema
  .omit({ concurrency: true, cacheTtlMs: true })
  .extend({
    /** `native`: OpenAI tool calls (`tools` in the request); `json`: the `{"type":"tool_call",...}` reply protocol for models without them. Default `native`. */
    toolCalls: z.enum(['native', 'json']).default('native'),
    /** Most model turns of one `scry ask` (each may call tools). Range 1–50; default 8. */
    maxRounds: z.number().int().min(1).max(50).default(8),
    /** Token budget of one `scry ask`: prompt and reply tokens of every turn together (o200k estimate). Range 1,000–1,000,000; default 60,000. */
    maxTokens: z.number().int().min(1000).max(1_000_000).default(60_000),
    /** Time limit of one model request. Range 1 s–10 min; default 120 s. */
    timeoutMs: z.number().int().min(1000).max(600_000).default(120_000),
    /** Model for `scry complete` (a FIM-trained code model); default `model`. */
    completionModel: z.string().min(1).optional(),
  })
  .strict();

/** Model reranking of the first candidates; the structural ranking always runs first. */
/** How `scry watch` and `scry mcp` follow changes on disk (see docs/DESIGN.md, "Freshness"). */
export const watchSchema = z
  .object({
    /**
     * `auto`: one OS watch per directory the index enters on Linux (ignored directories are never
     * watched), the OS's recursive watch elsewhere. `directories` or `recursive` force one of those;
     * `poll` runs a full incremental pass every `pollIntervalMs` instead (network drives and
     * containers where change events do not arrive). A watcher that fails falls back to `poll`.
     */
    backend: z.enum(['auto', 'directories', 'recursive', 'poll']).default('auto'),
    /** A changed file is indexed once it has been quiet this long. Range 0–60,000 ms; default 500. */
    debounceMs: z.number().int().min(0).max(60_000).default(500),
    /** No change waits longer than this for a batch to fill or a file to go quiet. Range 0–600,000 ms; default 2,000. */
    maxBatchWaitMs: z.number().int().min(0).max(600_000).default(2000),
    /** More pending paths than this is a storm (a checkout, a stash): one rescan pass instead of a list. Range 10–1,000,000; default 1,000. */
    stormPaths: z.number().int().min(10).max(1_000_000).default(1000),
    /** Interval of the `poll` backend (and of the fallback). Range 1,000–86,400,000 ms; default 30,000. */
    pollIntervalMs: z.number().int().min(1000).max(86_400_000).default(30_000),
  })
  .strict();

/**
 * Embeddings for vector and hybrid search (issue 8; docs/DESIGN.md "Semantic layer"). `builtin` (the
 * default) is scry's own model, shipped in the package and run in-process; `none` is lexical search
 * only. Only the endpoint configured here is ever contacted, and no
 * model is ever downloaded by `index` or `search` (`scry models pull` is the one explicit download).
 */
export const embedSchema = z
  .object({
    /** `builtin` (default: scry's own code-search model, shipped in the package), `none` (lexical only), `ollama`, `openai` (any OpenAI-compatible /v1/embeddings), `onnx` (a local model directory), `use-lite` (Universal Sentence Encoder lite, shipped in npm). */
    provider: z.enum(['none', 'builtin', 'ollama', 'openai', 'onnx', 'use-lite']).default('builtin'),
    ollama: z
      .object({
        /** Default `http://127.0.0.1:11434`. */
        baseUrl: z.string().url().default('http://127.0.0.1:11434'),
        /** Default `nomic-embed-text`. */
        model: z.string().min(1).default('nomic-embed-text'),
      })
      .strict()
      .prefault({}),
    openai: z
      .object({
        /** The API root, e.g. `https://api.openai.com/v1` or `http://localhost:8080/v1`; scry POSTs `{baseUrl}/embeddings`. */
        baseUrl: z.string().url(),
        model: z.string().min(1),
        /** Name of the environment variable holding the API key (sent as a Bearer token); never the key itself. */
        apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
        /** Ask the endpoint for vectors of this size (models that support shortening). */
        dimensions: z.number().int().min(1).max(8192).optional(),
      })
      .strict()
      .optional(),
    onnx: z
      .object({
        /** A directory with `model.onnx` (or `onnx/model.onnx`) and `tokenizer.json`. */
        modelDir: z.string().min(1).optional(),
        /** Or a model pulled into the cache with `scry models pull NAME`. */
        model: z.string().min(1).optional(),
        /** Tokens per text. Range 16–8192; default 256. */
        maxLength: z.number().int().min(16).max(8192).default(256),
        /** How token vectors become one: `mean` over the attention mask (default) or the first token (`cls`). */
        pooling: z.enum(['mean', 'cls']).default('mean'),
        /** Prepended to queries and to documents (models trained with instructions, e.g. `query: `). */
        queryPrefix: z.string().default(''),
        documentPrefix: z.string().default(''),
      })
      .strict()
      .refine((o) => o.modelDir !== undefined || o.model !== undefined, { message: 'embed.onnx needs modelDir or model' })
      .optional(),
    /** Texts per request. Range 1–512; default 32. */
    batchSize: z.number().int().min(1).max(512).default(32),
    /** One request's time limit. Range 100 ms–10 min; default 30 s. */
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Retries of a request answered 429 or 5xx (or timed out). Range 0–10; default 3. */
    retries: z.number().int().min(0).max(10).default(3),
    /** Query embedding time limit inside a search; past it the search answers lexically. Range 50 ms–60 s; default 5 s. */
    queryTimeoutMs: z.number().int().min(50).max(60_000).default(5000),
    /** How vectors are stored: `int8` (default; a scale per vector) or `float32`. */
    storage: z.enum(['int8', 'float32']).default('int8'),
    /** A chunk's text is cut to this many characters before embedding. Range 256–100,000; default 6,000. */
    maxChars: z.number().int().min(256).max(100_000).default(6000),
  })
  .strict()
  .refine((e) => e.provider !== 'openai' || e.openai !== undefined, { message: 'provider "openai" needs embed.openai', path: ['openai'] })
  .refine((e) => e.provider !== 'onnx' || e.onnx !== undefined, { message: 'provider "onnx" needs embed.onnx', path: ['onnx'] });

/** Local models pulled with `scry models pull` (Hugging Face hub layout). */
export const modelsSchema = z
  .object({
    /** Where pulled models live. Default: `<user cache>/scry/models`. */
    dir: z.string().min(1).optional(),
    /** The hub `scry models pull` downloads from (the only host it contacts). Default `https://huggingface.co`. */
    hubUrl: z.string().url().default('https://huggingface.co'),
  })
  .strict();

export const rerankSchema = z
  .object({
    /** `none` (default): structural ranking only; `llm`: a chat model scores 0–10; `cross-encoder`: a local ONNX model. */
    provider: z.enum(['none', 'llm', 'cross-encoder']).default('none'),
    /** Candidates sent to the model. Range 1–50; default 10. */
    maxCandidates: z.number().int().min(1).max(50).default(10),
    /** Time budget of one rerank; past it, unscored candidates keep their place. Range 100 ms–2 min; default 5 s. */
    timeoutMs: z.number().int().min(100).max(120_000).default(5000),
    llm: llmEndpointSchema.optional(),
    crossEncoder: z
      .object({
        /** A directory holding `model.onnx` (or `onnx/model.onnx`) and `tokenizer.json`. */
        modelDir: z.string().min(1),
        /** Tokens per (query, chunk) pair. Range 32–2048; default 512. */
        maxLength: z.number().int().min(32).max(2048).default(512),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((r) => r.provider !== 'llm' || r.llm !== undefined, { message: 'provider "llm" needs rerank.llm', path: ['llm'] })
  .refine((r) => r.provider !== 'cross-encoder' || r.crossEncoder !== undefined, { message: 'provider "cross-encoder" needs rerank.crossEncoder', path: ['crossEncoder'] });

/**
 * The per-file steps of one query kind (`search.ranking.byKind`, src/search/query-kind.ts): each
 * key set here replaces the `search.ranking` value of the same name for queries of that kind.
 */
export const kindRankingSchema = z
  .object({
    /** As `search.ranking.fileCap`, for this kind. */
    fileCap: z.number().int().min(0).max(100).optional(),
    /** As `search.ranking.fileCapWithin`, for this kind. */
    fileCapWithin: z.number().min(0).max(1).optional(),
    /** As `search.ranking.fileCapSpread`, for this kind. */
    fileCapSpread: z.number().int().min(0).max(100).optional(),
    /** As `search.ranking.fileDecay`, for this kind. */
    fileDecay: z.number().min(0.1).max(1).optional(),
    /** As `search.ranking.fileBlend`, for this kind. */
    fileBlend: z.number().min(0).max(1).optional(),
    /** As `search.ranking.learned`, for this kind (the learned ranker keeps its own per-file diversity). */
    learned: z.boolean().optional(),
  })
  .strict();

/**
 * Ranking techniques beyond BM25, each switchable for ablation (`scry eval` compares them). The
 * defaults are the configuration tuned on the development benchmark (docs/DESIGN.md "Ranking").
 */
export const rankingSchema = z
  .object({
    /** Long queries: title words and words written as code count up to 3× the prose. Default true. */
    queryWeights: z.boolean().default(true),
    /** Score multiplier for a chunk defining a symbol the query names. Range 1–5; 1 is off. */
    definitionBoost: z.number().min(1).max(5).default(1.25),
    /** Share of a test chunk's score passed to the source file it tests. Range 0–1; 0 is off. */
    testToSource: z.number().min(0).max(1).default(0.5),
    /** Multiplier of docs, config and text in queries not about them. Range 0.1–1; 1 is off. */
    nonCode: z.number().min(0.1).max(1).default(0.5),
    /** Multiplier of code chunks that define nothing (top-level statements, line windows). Range 0.1–1; 1 is off. */
    nonDefinition: z.number().min(0.1).max(1).default(1),
    /** Each chunk gains this share of the two best other chunks of its file. Range 0–1; 0 is off. */
    fileSupport: z.number().min(0).max(1).default(0.2),
    /** Most chunks of one file among the results (later ones move below other files). 0 is off. */
    fileCap: z.number().int().min(0).max(100).default(0),
    /** With fileCap: a file's later chunk stays in place only if it scores at least this share of the file's best. Range 0–1; 0 is off. */
    fileCapWithin: z.number().min(0).max(1).default(0),
    /**
     * With fileCap: a chunk the cap moves down goes below the best chunks of the next
     * `fileCapSpread` files only (so a file's second function stays near its first), instead of below
     * every other file's chunks. Range 0–100; 0 (default) is below all.
     */
    fileCapSpread: z.number().int().min(0).max(100).default(0),
    /** A file's n-th chunk counts × fileDecay^(n − 1) (a soft per-file cap). Range 0.1–1; 1 is off; default 0.95. */
    fileDecay: z.number().min(0.1).max(1).default(0.95),
    /** Each chunk's score × ((1 − fileBlend) + fileBlend × its file's score / the best file's). Range 0–1; 0 is off. */
    fileBlend: z.number().min(0).max(1).default(0),
    /**
     * Recency boost (issue 22, seed 001): score × (1 + recency × 0.5^(age / recencyHalfLifeDays)),
     * from each chunk's content timestamp; a chunk without one is neither boosted nor penalised.
     * Range 0–1; 0 (default, right for code) is off; document collections default to 0.15.
     */
    recency: z.number().min(0).max(1).default(0),
    /** Half-life of the recency boost, in days. Range 1–36500; default 180. */
    recencyHalfLifeDays: z.number().min(1).max(36_500).default(180),
    /**
     * Rank with the learned linear model (models/ranker/weights.json) instead of the rules above and,
     * in hybrid mode, instead of Reciprocal Rank Fusion. Default false.
     */
    learned: z.boolean().default(false),
    /**
     * Query expansion (issue 17): a natural-language query's words are joined by the code tokens
     * they go with in the training pairs (models/expand/: "remove" → delete, unlink), each counting
     * this share of a query word. Identifier, path and long queries are never expanded. Range 0–1;
     * 0 is off.
     */
    expansion: z.number().min(0).max(1).default(0),
    /**
     * The per-file steps per query kind (identifier, path, long, natural; src/search/query-kind.ts):
     * `{ long: { fileCap: 3, fileCapWithin: 0.7 } }` caps long queries only; `{ long: { learned: true } }`
     * ranks them with the learned ranker. A key a kind sets
     * replaces the value above for that kind; `--explain` names the kind's settings. In the hybrid
     * blend (natural-language queries by default) the lexical list is uncapped and undecayed, and a
     * kind's fileCap, fileCapWithin, fileCapSpread and fileDecay set here shape the blended list.
     * Default `{ long: { fileDecay: 0.9 } }`: long queries (issue texts, commit messages) show more
     * files in a list of chunks (held-out: 4.9 → 5.4 distinct files in 10, function hit@10 within
     * noise; docs/DESIGN.md "Diversity per query kind"). A `byKind` in a config replaces this
     * default as a whole: list `long` too to keep it.
     */
    byKind: z
      .object({
        identifier: kindRankingSchema.optional(),
        path: kindRankingSchema.optional(),
        long: kindRankingSchema.optional(),
        natural: kindRankingSchema.optional(),
      })
      .strict()
      .default({ long: { fileDecay: 0.9 } }),
  })
  .strict();

/** Reciprocal Rank Fusion of the lexical, vector and symbol lists (docs/DESIGN.md "Hybrid search"). */
export const fusionSchema = z
  .object({
    /** RRF's k: each list adds weight / (k + rank). Range 0–1,000; default 60 (the paper's). */
    k: z.number().min(0).max(1000).default(60),
    /** Per-list weights. Range 0–10 each; 0 leaves a list out. */
    lexical: z.number().min(0).max(10).default(1),
    vector: z.number().min(0).max(10).default(1),
    symbol: z.number().min(0).max(10).default(1),
    /** Results each list contributes before fusion. Range 10–500; default 50. */
    depth: z.number().int().min(10).max(500).default(50),
    /** Most chunks of one file before other files' chunks. 0 is off; default 3. */
    fileCap: z.number().int().min(0).max(100).default(3),
    /**
     * 0: Reciprocal Rank Fusion as above. Above 0: a score-level blend instead, the lexical score +
     * blend × the model's cosine (each over the query's best) over the lexical top 50 and the vector
     * top `depth`, for the kinds `blendByKind` lets through. Range 0–10; default 0.3 (best on the
     * tuning half with builtin v3; with v4 it raises golden natural-language MRR 0.692 → 0.736).
     */
    blend: z.number().min(0).max(10).default(0.3),
    /**
     * The blend weight per query kind (src/search/query-kind.ts): a kind whose weight is 0 is ranked
     * lexically (the vector list does not touch it). A kind not listed: `blend` for natural-language
     * queries, 0 for identifier, path and long ones (where vectors cost: golden long MRR 0.947 →
     * 0.924 with the blend on them). Range 0–10 each. When every kind's weight is 0, hybrid is rank
     * fusion as above.
     */
    blendByKind: z
      .object({
        identifier: z.number().min(0).max(10).optional(),
        path: z.number().min(0).max(10).optional(),
        long: z.number().min(0).max(10).optional(),
        natural: z.number().min(0).max(10).optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

/** One language server as the config names it: the executable and its arguments (never taken from indexed content). */
export const lspServerSchema = z
  .object({
    /** Executable: a name looked up in the project's and scry's node_modules/.bin, then PATH, or an absolute path. */
    command: z.string().min(1).max(1000),
    /** Arguments, passed as they are (no shell). Default none. */
    args: z.array(z.string().max(1000)).max(50).default([]),
  })
  .strict();

/** Language servers (issue 21, docs/DESIGN.md "Language servers"): type-resolved definitions, references and diagnostics. */
export const lspSchema = z
  .object({
    /** Start language servers on demand. Default false: definitions and references by name, diagnostics from the TypeScript compiler API. */
    enabled: z.boolean().default(false),
    /**
     * Servers by language (`typescript`, `python`, `go`, `rust`, `c`, `java`), over the built-in table;
     * `{ "command": "" }` is refused, and a language left out keeps its built-in server.
     */
    servers: z.record(z.string().min(1).max(40), lspServerSchema).default({}),
    /** A server idle this long is shut down. Range 1,000–86,400,000 ms; default 300,000 (5 min). */
    idleMs: z.number().int().min(1000).max(86_400_000).default(300_000),
    /** Longest wait for one answer (and for a server's start) before falling back to names. Range 100–120,000 ms; default 10,000. */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** Memory cap passed to servers that take one (typescript-language-server's tsserver). Range 128–16,384 MB; default 2,048. */
    maxMemoryMb: z.number().int().min(128).max(16_384).default(2048),
  })
  .strict();

export const configSchema = z
  .object({
    /** Where the index database lives. Default: the user cache dir, keyed by the project's real path. */
    db: z.string().min(1).optional(),
    /** Files larger than this are skipped (`too_large`). Default 1 MB. */
    maxFileBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1_000_000),
    /** Extra gitignore-style patterns to exclude, applied after .gitignore and .scryignore. */
    ignore: z.array(z.string()).default([]),
    /** Changes to the built-in denylist: `add` patterns, or `remove` built-in ones by their exact text. */
    denylist: z
      .object({ add: z.array(z.string()).default([]), remove: z.array(z.string()).default([]) })
      .strict()
      .default({ add: [], remove: [] }),
    /**
     * Parse code with tree-sitter (definitions, symbols, imports). Default true; false chunks all
     * code by line windows — faster to index, but with no symbols, outline or structure-aware chunks.
     */
    syntax: z.boolean().default(true),
    /**
     * Wall-clock guard per file against a tree-sitter hang, ms. Range 1,000–600,000; default 30,000.
     * Not the everyday limit (that is a work budget, the same on every machine): a file stopped by
     * it is indexed by line windows (`parse_timeout`) and parsed again on the next pass.
     */
    parseTimeoutMs: z.number().int().min(1000).max(600_000).default(30_000),
    chunk: chunkSchema.default({ windowLines: 60, overlapLines: 8, maxBytes: 4096 }),
    /** Documents whose bytes are not their text (issue 22): PDFs, e-mail (.eml, .mbox), HTML pages. */
    documents: z
      .object({
        /** PDFs and mail files larger than this are skipped (`too_large`). Range 1 KB–1 GB; default 50 MB. */
        maxBytes: z.number().int().min(1024).max(1024 * 1024 * 1024).default(50_000_000),
        /** `source` (default): HTML is code, parsed as markup; `text`: its main text by headings, as a document (collections of web pages). */
        html: z.enum(['source', 'text']).default('source'),
      })
      .strict()
      .prefault({}),
    search: z
      .object({
        /** Default number of results. Range 1–1000; default 10. */
        limit: z.number().int().min(1).max(1000).default(10),
        weights: weightsSchema.default({ stem: 6, path: 2, symbol: 5, signature: 2, body: 1, parts: 0.6, doc: 1 }),
        // every field has its default, so an absent object is parsed as `{}`
        ranking: rankingSchema.prefault({}),
        /** `auto` (default): hybrid when the index has vectors for the configured model, else lexical. */
        mode: z.enum(['auto', 'lexical', 'vector', 'hybrid']).default('auto'),
        fusion: fusionSchema.prefault({}),
      })
      .strict()
      .prefault({}),
    rerank: rerankSchema.prefault({}),
    embed: embedSchema.prefault({}),
    models: modelsSchema.prefault({}),
    watch: watchSchema.prefault({}),
    /** The chat model of `scry ask` and `scry complete`; absent (default), those commands refuse to run. */
    llm: llmSchema.optional(),
    lsp: lspSchema.prefault({}),
    /** How long a writer waits for another process's index lock before INDEX_LOCKED. Default 30 s. */
    lockTimeoutMs: z.number().int().min(0).max(3_600_000).default(30_000),
    /** `scry serve` (tokens, limits); read by `scry serve` only, ignored by the other commands. */
    serve: serveSchema.optional(),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type ConfigOutput = z.output<typeof configSchema>;
export type ChunkConfig = z.output<typeof chunkSchema>;
export type FieldWeights = z.output<typeof weightsSchema>;
export type RankingConfig = z.output<typeof rankingSchema>;
export type DocumentsConfig = ConfigOutput['documents'];
export type RerankConfig = z.output<typeof rerankSchema>;
export type WatchConfig = z.output<typeof watchSchema>;
export type EmbedConfig = z.output<typeof embedSchema>;
export type FusionConfig = z.output<typeof fusionSchema>;
export type ModelsConfig = z.output<typeof modelsSchema>;
export type LspConfig = z.output<typeof lspSchema>;
export type LlmEndpointConfig = z.output<typeof llmEndpointSchema>;
export type LlmConfig = z.output<typeof llmSchema>;
