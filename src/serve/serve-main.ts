import { resolvePushToken, resolveServeConfig } from '../config/serve.js';
import { EngineError } from '../core/errors.js';
import { openPgTeamStore } from '../team/pg-team-store.js';
import { readPushSource } from '../team/push-source.js';
import { checkRepoName } from './access.js';
import { pushIndex, type PushOptions, type PushReport } from './push-client.js';
import { startTeamServer, type TeamServerHandle, type TeamServerOptions } from './team-server.js';

export interface ServeOptions {
  /** `postgres://user@host/db`. */
  readonly db: string;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  /** The file holding `serve` settings (default scry.config.json in `cwd`, when present). */
  readonly configFile?: string | undefined;
  readonly cwd: string;
  /** Environment to read SCRY_SERVE_TOKENS from (default process.env, read in config/). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  readonly version: string;
  readonly log: (line: string) => void;
  /** An access log (see TeamServerOptions.onRequest). */
  readonly onRequest?: TeamServerOptions['onRequest'];
}

export interface RunningServer extends TeamServerHandle {
  /** Schema version before and after the migrations run at start. */
  readonly migrated: { readonly from: number; readonly to: number };
  /** How many tokens the server accepts. */
  readonly tokens: number;
}

/**
 * `scry serve`: resolves the settings (tokens from serve.tokens and SCRY_SERVE_TOKENS), opens the
 * team database, runs its migrations (TEAM_DB_TOO_NEW for a database a newer scry migrated), then
 * serves. A server without any token and without anonymous reads is refused: it could answer
 * nothing but 401.
 */
export async function startServe(options: ServeOptions): Promise<RunningServer> {
  if (!/^postgres(ql)?:\/\//.test(options.db)) throw new EngineError('INVALID_ARGUMENT', { name: '--db', reason: 'must be a postgres:// URL' });
  const config = resolveServeConfig({ configFile: options.configFile, cwd: options.cwd, env: options.env });
  const tokens = Object.keys(config.tokens).length;
  if (tokens === 0 && config.anonymousRead.length === 0) {
    throw new EngineError('CONFIG_INVALID', { source: config.sources.join(', '), reason: 'no tokens: set serve.tokens in the config file or SCRY_SERVE_TOKENS ({"<token>": {"read": ["repo"], "push": ["repo"]}})' });
  }
  const store = openPgTeamStore(options.db);
  try {
    const migrated = await store.migrate();
    const handle = await startTeamServer({ store, config, host: options.host, port: options.port, version: options.version, schema: migrated.to, log: options.log, onRequest: options.onRequest });
    return {
      ...handle,
      migrated,
      tokens,
      close: async () => {
        await handle.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

export interface PushCommandOptions extends Omit<PushOptions, 'token'> {
  /** The local SQLite index to push (already brought up to date). */
  readonly dbPath: string;
  /** --token; SCRY_TOKEN when undefined. */
  readonly token: string | undefined;
}

/**
 * Checks what `scry push` was given before any work: a token (--token, else SCRY_TOKEN; else
 * AUTH_REQUIRED), a repository name and an http(s) server URL (INVALID_ARGUMENT). Returns the token.
 */
export function checkPushTarget(options: { server: string; repo: string; token: string | undefined }): string {
  const token = resolvePushToken(options.token);
  if (token === undefined) throw new EngineError('AUTH_REQUIRED', { reason: 'scry push needs --token or SCRY_TOKEN' });
  checkRepoName(options.repo);
  if (!/^https?:\/\/[^/]/.test(options.server)) throw new EngineError('INVALID_ARGUMENT', { name: '--server', reason: 'must be an http:// or https:// URL' });
  return token;
}

/** `scry push` after the local pass: reads the index at `dbPath` as a push and sends it. */
export async function pushLocalIndex(options: PushCommandOptions): Promise<PushReport> {
  const token = checkPushTarget(options);
  const source = readPushSource(options.dbPath);
  try {
    return await pushIndex(source, { ...options, token });
  } finally {
    source.close();
  }
}
