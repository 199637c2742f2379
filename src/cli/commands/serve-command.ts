import { EngineError } from '../../index.js';
import { DEFAULT_SERVE_HOST, DEFAULT_SERVE_PORT } from '../../serve/team-server.js';
import { startServe } from '../../serve/serve-main.js';
import type { CliIO } from '../io.js';

export interface ServeFlags {
  db?: string;
  port?: string;
  host?: string;
  config?: string;
  json?: boolean;
}

/** Resolves on SIGINT or SIGTERM, so the server closes its database connections cleanly. */
function untilSignal(): { promise: Promise<void>; dispose: () => void } {
  let done: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    done = resolve;
  });
  process.once('SIGINT', done);
  process.once('SIGTERM', done);
  return { promise, dispose: () => (process.off('SIGINT', done), process.off('SIGTERM', done)) };
}

/** `serveCommand` for the command table: the CLI's version (read once by main.ts) bound in. */
export const serveCommandFor =
  (version: string) =>
  (io: CliIO, flags: ServeFlags): Promise<number> =>
    serveCommand(io, flags, version);

/** `scry serve --db postgres://…`: the team index over HTTP until SIGINT/SIGTERM. */
export async function serveCommand(io: CliIO, flags: ServeFlags, version: string): Promise<number> {
  if (flags.db === undefined) throw new EngineError('INVALID_ARGUMENT', { name: '--db', reason: 'scry serve needs --db postgres://USER@HOST/DATABASE' });
  const port = flags.port === undefined ? DEFAULT_SERVE_PORT : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new EngineError('INVALID_ARGUMENT', { name: '--port', reason: `"${flags.port}" is not an integer from 0 to 65535` });
  const signal = untilSignal();
  try {
    const server = await startServe({ db: flags.db, host: flags.host ?? DEFAULT_SERVE_HOST, port, configFile: flags.config, cwd: io.cwd, version, log: (line) => io.err(`${line}\n`) });
    const ready = { url: server.url, mcp: `${server.url}/mcp`, schema: server.migrated.to, migratedFrom: server.migrated.from, tokens: server.tokens };
    if (flags.json) io.out(`${JSON.stringify(ready)}\n`);
    else io.err(`scry serve: team index at ${server.url} (API /api/search, MCP ${ready.mcp}; schema ${ready.schema}, ${ready.tokens} token(s)); Ctrl-C to stop\n`);
    await signal.promise;
    await server.close();
    return 0;
  } finally {
    signal.dispose();
  }
}
