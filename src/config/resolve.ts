import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import envPaths from 'env-paths';
import { EngineError } from '../core/errors.js';
import { shortHash } from '../core/hash.js';
import { DEFAULT_CONFIG } from './defaults.js';
import type { ChunkConfig, ConfigInput, DocumentsConfig, ConfigOutput, EmbedConfig, FieldWeights, FusionConfig, LlmConfig, LspConfig, RankingConfig, RerankConfig, WatchConfig } from './schema.js';

type SearchModeName = 'lexical' | 'vector' | 'hybrid';

/** The project config file, looked up in the project root. */
export const CONFIG_FILE_NAME = 'scry.config.json';

/** Everything the engine needs, resolved once at the edge and frozen. */
export interface ResolvedConfig {
  /** Real path of the project root (symlinks resolved), or undefined when only a db was given. */
  readonly root: string | undefined;
  /** Absolute path of the index database. */
  readonly dbPath: string;
  /** True when dbPath was chosen by the user (flag, env, config), not derived from the root. */
  readonly dbExplicit: boolean;
  readonly maxFileBytes: number;
  readonly ignore: readonly string[];
  readonly denylist: { readonly add: readonly string[]; readonly remove: readonly string[] };
  readonly chunk: Readonly<ChunkConfig>;
  /** PDFs, e-mail and HTML as documents (see the `documents` option). */
  readonly documents: Readonly<DocumentsConfig>;
  /** Parse code with tree-sitter (see the `syntax` option). */
  readonly syntax: boolean;
  /** Wall-clock guard per parsed file (see the `parseTimeoutMs` option). */
  readonly parseTimeoutMs: number;
  readonly search: { readonly limit: number; readonly weights: Readonly<FieldWeights>; readonly ranking: Readonly<RankingConfig>; readonly mode: 'auto' | SearchModeName; readonly fusion: Readonly<FusionConfig> };
  /** Model reranking (see the `rerank` option); provider `none` by default. `crossEncoder.modelDir` is absolute. */
  readonly rerank: Readonly<RerankConfig>;
  /** The API key of the LLM reranker, read from the variable `rerank.llm.apiKeyEnv` names (a function, so it never shows in JSON). */
  readonly rerankApiKey: () => string | undefined;
  /** Embeddings (see the `embed` option); provider `none` by default. `onnx.modelDir` is absolute. */
  readonly embed: Readonly<EmbedConfig>;
  /** The API key of the OpenAI-compatible embedding endpoint, read from the variable `embed.openai.apiKeyEnv` names. */
  readonly embedApiKey: () => string | undefined;
  /** Pulled models: `dir` is absolute (default `<cache>/models`). */
  readonly models: { readonly dir: string; readonly hubUrl: string };
  /** How watchers follow changes (see the `watch` option). */
  readonly watch: Readonly<WatchConfig>;
  /** The chat model of `scry ask` / `scry complete` (see the `llm` option); undefined when not configured. */
  readonly llm: Readonly<LlmConfig> | undefined;
  /** The API key of that model, read from the variable `llm.apiKeyEnv` names. */
  readonly llmApiKey: () => string | undefined;
  readonly lockTimeoutMs: number;
  /** Language servers (see the `lsp` option); `searchPath` is the PATH directories servers are looked up in. */
  readonly lsp: Readonly<LspConfig> & { readonly searchPath: readonly string[] };
  /** Where the config came from, for status output. */
  readonly sources: readonly string[];
}

export interface ResolveOptions {
  /** Project root; optional when `db` points at an existing index (its root is read from it). */
  root?: string | undefined;
  /** Explicit database path (the CLI's --db). Wins over env and the config file. */
  db?: string | undefined;
  /** Programmatic overrides, applied over the config file (flags). */
  overrides?: ConfigInput | undefined;
  /** Environment to read SCRY_* variables from. Defaults to process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** Resolves the project root to its real path, or throws ROOT_NOT_FOUND / ROOT_NOT_DIRECTORY. */
export function resolveRoot(root: string): string {
  const abs = resolve(root);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw new EngineError('ROOT_NOT_FOUND', { root: abs });
  }
  if (!statSync(real).isDirectory()) throw new EngineError('ROOT_NOT_DIRECTORY', { root: abs });
  return real;
}

/** The scry cache dir: SCRY_CACHE_DIR, else the user cache dir (env-paths) for `scry`. */
export function resolveCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.SCRY_CACHE_DIR ? resolve(env.SCRY_CACHE_DIR) : envPaths('scry', { suffix: '' }).cache;
}

/** Default database location: `<user cache>/scry/projects/<name>-<hash of real root>/index.db`. */
export function defaultDbPath(realRoot: string, cacheDir: string): string {
  const name = basename(realRoot).replace(/[^A-Za-z0-9._-]/g, '_') || 'root';
  return join(cacheDir, 'projects', `${name}-${shortHash(realRoot)}`, 'index.db');
}

function readConfigFile(root: string): { input: unknown; source: string } | undefined {
  const file = join(root, CONFIG_FILE_NAME);
  if (!existsSync(file)) return undefined;
  try {
    return { input: JSON.parse(readFileSync(file, 'utf8')), source: file };
  } catch (err) {
    throw new EngineError('CONFIG_INVALID', { source: file, reason: (err as Error).message });
  }
}

function deepMerge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return over;
  if (typeof over !== 'object' || over === null || Array.isArray(over)) return over;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(out[k], v);
  return out;
}

async function parse(input: unknown, source: string): Promise<ConfigOutput> {
  const { configSchema } = await import('./schema.js');
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const reason = result.error.issues
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new EngineError('CONFIG_INVALID', { source, reason });
  }
  return result.data;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Resolves configuration: defaults ← scry.config.json ← environment (SCRY_DB, SCRY_CACHE_DIR)
 * ← explicit options. Unknown keys are rejected with CONFIG_INVALID.
 */
export async function resolveConfig(options: ResolveOptions): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const root = options.root !== undefined ? resolveRoot(options.root) : undefined;
  const sources: string[] = ['defaults'];
  const file = root !== undefined ? readConfigFile(root) : undefined;
  if (file) sources.push(file.source);
  // with overrides, the file is validated on its own first, so that its errors name the file
  if (file && options.overrides) await parse(file.input, file.source);
  const merged = options.overrides
    ? await parse(deepMerge(file?.input ?? {}, options.overrides), 'options')
    : file
      ? await parse(file.input, file.source)
      : structuredClone(DEFAULT_CONFIG);
  if (options.overrides) sources.push('options');

  const cacheDir = resolveCacheDir(env);
  const explicitDb = options.db ?? (env.SCRY_DB || undefined) ?? merged.db;
  let dbPath: string;
  if (explicitDb !== undefined) {
    dbPath = resolve(root ?? process.cwd(), explicitDb);
  } else if (root !== undefined) {
    dbPath = defaultDbPath(root, cacheDir);
  } else {
    throw new EngineError('INVALID_ARGUMENT', { name: 'root', reason: 'either a project root or a database path is required' });
  }
  if (env.SCRY_DB && options.db === undefined) sources.push('env:SCRY_DB');

  return deepFreeze({
    root,
    dbPath,
    dbExplicit: explicitDb !== undefined,
    maxFileBytes: merged.maxFileBytes,
    ignore: merged.ignore,
    denylist: merged.denylist,
    chunk: merged.chunk,
    documents: merged.documents,
    syntax: merged.syntax,
    parseTimeoutMs: merged.parseTimeoutMs,
    search: merged.search,
    rerank: merged.rerank.crossEncoder
      ? { ...merged.rerank, crossEncoder: { ...merged.rerank.crossEncoder, modelDir: resolve(root ?? process.cwd(), merged.rerank.crossEncoder.modelDir) } }
      : merged.rerank,
    rerankApiKey: () => (merged.rerank.llm?.apiKeyEnv ? env[merged.rerank.llm.apiKeyEnv] || undefined : undefined),
    embed: merged.embed.onnx?.modelDir ? { ...merged.embed, onnx: { ...merged.embed.onnx, modelDir: resolve(root ?? process.cwd(), merged.embed.onnx.modelDir) } } : merged.embed,
    embedApiKey: () => (merged.embed.openai?.apiKeyEnv ? env[merged.embed.openai.apiKeyEnv] || undefined : undefined),
    models: { dir: merged.models.dir ? resolve(root ?? process.cwd(), merged.models.dir) : join(cacheDir, 'models'), hubUrl: merged.models.hubUrl },
    watch: merged.watch,
    llm: merged.llm,
    llmApiKey: () => (merged.llm?.apiKeyEnv ? env[merged.llm.apiKeyEnv] || undefined : undefined),
    lockTimeoutMs: merged.lockTimeoutMs,
    lsp: { ...merged.lsp, searchPath: (env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d)) },
    sources,
  });
}
