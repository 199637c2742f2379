import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod';
import { EngineError } from '../core/errors.js';

/** What one bearer token may do: repository names it may read and push, or `"*"` for every repository. */
export const tokenScopeSchema = z
  .object({
    /** Repositories the token may search (`/api/search`, the MCP tools). `"*"` = all. Default none. */
    read: z.array(z.string().min(1)).default([]),
    /** Repositories the token may push revisions to (`scry push`). `"*"` = all. Default none. */
    push: z.array(z.string().min(1)).default([]),
  })
  .strict();

/** `{"<token>": {"read": [repos], "push": [repos]}}`; a token shorter than 16 characters is refused (guessable). */
export const tokensSchema = z.record(z.string().min(16, 'tokens must be at least 16 characters'), tokenScopeSchema);

/** `scry serve` (issue 23): the team index over PostgreSQL. */
export const serveSchema = z
  .object({
    /** Bearer tokens and their scopes. Merged with SCRY_SERVE_TOKENS (the environment wins per token). */
    tokens: tokensSchema.default({}),
    /** Repositories anyone may read without a token. Default none: every request needs a token. `"*"` = all. */
    anonymousRead: z.array(z.string().min(1)).default([]),
    /** Largest request body, bytes (one batch of a push, one MCP message). Range 64 KiB–256 MiB; default 8 MiB. */
    maxBodyBytes: z.number().int().min(65_536).max(268_435_456).default(8 * 1024 * 1024),
    /** Largest commit body: the manifest of one revision (every file and chunk, without texts), bytes. Range 1 MiB–4 GiB; default 256 MiB. */
    maxManifestBytes: z.number().int().min(1_048_576).max(4_294_967_296).default(256 * 1024 * 1024),
    /** Largest push: the file bodies, postings and vectors of one revision together, bytes. Range 1 MiB–64 GiB; default 1 GiB. */
    maxPushBytes: z.number().int().min(1_048_576).max(68_719_476_736).default(1024 * 1024 * 1024),
    /** An uncommitted revision untouched this long is deleted (a push that died). Range 1 min–1 day; default 15 minutes. */
    staleRevisionMs: z.number().int().min(60_000).max(86_400_000).default(900_000),
  })
  .strict();

export type ServeConfigInput = z.input<typeof serveSchema>;
export type TokenScope = z.output<typeof tokenScopeSchema>;

/** The server's settings, resolved once at start-up and frozen. */
export interface ServeConfig {
  readonly tokens: Readonly<Record<string, Readonly<TokenScope>>>;
  readonly anonymousRead: readonly string[];
  readonly maxBodyBytes: number;
  readonly maxPushBytes: number;
  readonly maxManifestBytes: number;
  readonly staleRevisionMs: number;
  /** Where the settings came from (never the tokens themselves). */
  readonly sources: readonly string[];
}

export interface ServeConfigOptions {
  /** A JSON file holding `{"serve": {...}}` (scry.config.json). Default: scry.config.json in `cwd` when it exists. */
  readonly configFile?: string | undefined;
  readonly cwd?: string | undefined;
  /** Environment to read SCRY_SERVE_TOKENS from. Defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

function fail(source: string, error: z.ZodError): never {
  const reason = error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new EngineError('CONFIG_INVALID', { source, reason });
}

function readServeSection(file: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new EngineError('CONFIG_INVALID', { source: file, reason: (err as Error).message });
  }
  return typeof parsed === 'object' && parsed !== null ? (parsed as { serve?: unknown }).serve : undefined;
}

/**
 * Resolves the server's settings: defaults ← `serve` of the config file ← SCRY_SERVE_TOKENS (a JSON
 * object of tokens, merged over the file's by token). Invalid JSON or scopes are CONFIG_INVALID
 * naming the source, never a server that starts open.
 */
export function resolveServeConfig(options: ServeConfigOptions = {}): ServeConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const sources = ['defaults'];
  const file = options.configFile !== undefined ? resolve(cwd, options.configFile) : resolve(cwd, 'scry.config.json');
  if (options.configFile !== undefined && !existsSync(file)) throw new EngineError('CONFIG_INVALID', { source: file, reason: 'no such file' });
  const section = existsSync(file) ? readServeSection(file) : undefined;
  if (section !== undefined) sources.push(file);
  const parsed = serveSchema.safeParse(section ?? {});
  if (!parsed.success) fail(file, parsed.error);
  let tokens = parsed.data.tokens;
  const raw = env.SCRY_SERVE_TOKENS;
  if (raw !== undefined && raw.trim() !== '') {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      throw new EngineError('CONFIG_INVALID', { source: 'env:SCRY_SERVE_TOKENS', reason: (err as Error).message });
    }
    const fromEnv = tokensSchema.safeParse(json);
    if (!fromEnv.success) fail('env:SCRY_SERVE_TOKENS', fromEnv.error);
    tokens = { ...tokens, ...fromEnv.data };
    sources.push('env:SCRY_SERVE_TOKENS');
  }
  return Object.freeze({ ...parsed.data, tokens: Object.freeze(tokens), anonymousRead: Object.freeze([...parsed.data.anonymousRead]), sources: Object.freeze(sources) });
}

/** The token `scry push` sends: --token, else SCRY_TOKEN; undefined when neither is set. */
export function resolvePushToken(flag: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return flag ?? (env.SCRY_TOKEN || undefined);
}
