import * as z from 'zod';
import { fusionSchema, rankingSchema, weightsSchema } from './search-schema.js';
import { serveSchema } from './serve.js';

export { fusionSchema, kindRankingSchema, rankingSchema, weightsSchema } from './search-schema.js';

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
