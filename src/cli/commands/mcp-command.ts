import { EngineError, collectionTypes, openCollection, type CollectionMember, type Engine, type IndexWatch, type Logger } from '../../index.js';
import { BIND_HOSTS, DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, serveHttp } from '../../mcp/http.js';
import { scryServerFactory, type ScryServerOptions } from '../../mcp/server.js';
import { serveStdio } from '../../mcp/stdio.js';
import { IndexEvents } from '../../mcp/index-events.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';

export interface McpFlags {
  root?: string;
  db?: string;
  http?: boolean;
  port?: string;
  host?: string;
  readOnly?: boolean;
  allowWrites?: boolean;
  /** commander's `--no-watch`: false turns the file watcher off. */
  watch?: boolean;
  /** Named collections served beside the project (search tools take `collections: [...]`). */
  collection?: string[];
}

/** Opens and watches each named collection, so that each stays fresh as the project does. */
async function serveCollections(names: readonly string[], logger: Logger, files: boolean, opened: { members: CollectionMember[]; watches: IndexWatch[] }): Promise<void> {
  for (const name of new Set(names)) {
    const engine = await openCollection(name, { logger });
    opened.members.push({ name, engine, types: collectionTypes(name) });
    opened.watches.push(await engine.watch({ files }));
  }
}

/** A non-negative integer flag up to `max`, or the default. */
function intFlag(raw: string | undefined, name: string, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > max) throw new EngineError('INVALID_ARGUMENT', { name, reason: `"${raw}" is not an integer from 0 to ${max}` });
  return n;
}

/** Warnings and errors on stderr; stdout belongs to the MCP transport. */
function stderrLogger(io: CliIO): Logger {
  const line = (level: string, message: string, data?: Record<string, unknown>): void =>
    io.err(`scry mcp: ${level}${message}${data && Object.keys(data).length > 0 ? ` ${JSON.stringify(data)}` : ''}\n`);
  return { debug: () => {}, info: () => {}, warn: (m, d) => line('warning: ', m, d) };
}

/** Resolves on SIGINT or SIGTERM, so the server can shut down cleanly (release the writer lock). */
function untilSignal(): { promise: Promise<void>; dispose: () => void } {
  let done: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    done = resolve;
  });
  process.once('SIGINT', done);
  process.once('SIGTERM', done);
  return { promise, dispose: () => (process.off('SIGINT', done), process.off('SIGTERM', done)) };
}

/**
 * While the stdio transport owns stdout, a stray console.log (ours or a dependency's) would
 * corrupt the JSON-RPC stream: send it to stderr instead. Returns the undo.
 */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}

/**
 * `scry mcp`: an MCP server over the index of --root (stdio, or Streamable HTTP on localhost
 * with --http). It keeps the index fresh with `engine.watch()`: the writer of the index if no
 * other process is, a reader that takes over otherwise. Returns when the client disconnects
 * (stdio) or on SIGINT/SIGTERM.
 */
export async function mcpCommand(io: CliIO, flags: McpFlags, version: string): Promise<number> {
  const port = intFlag(flags.port, 'port', 65_535, DEFAULT_HTTP_PORT);
  const host = flags.host ?? DEFAULT_HTTP_HOST;
  if (!BIND_HOSTS.includes(host)) throw new EngineError('INVALID_ARGUMENT', { name: 'host', reason: `"${host}" is not one of ${BIND_HOSTS.join(', ')} (the server binds to this machine only)` });
  if (flags.readOnly && flags.allowWrites) throw new EngineError('INVALID_ARGUMENT', { name: 'allow-writes', reason: 'contradicts --read-only' });
  if (!flags.http && (flags.port !== undefined || flags.host !== undefined)) throw new EngineError('INVALID_ARGUMENT', { name: flags.port !== undefined ? 'port' : 'host', reason: 'only applies with --http' });

  const restoreConsole = flags.http ? () => {} : consoleToStderr();
  const signal = untilSignal();
  let engine: Engine | undefined;
  let watch: IndexWatch | undefined;
  const extra: { members: CollectionMember[]; watches: IndexWatch[] } = { members: [], watches: [] };
  try {
    const logger = stderrLogger(io);
    engine = await openEngine(io, { dir: flags.root, db: flags.db, logger });
    // resource subscriptions hear of each pass through these
    const events = new IndexEvents();
    watch = await engine.watch({ files: flags.watch !== false, onEvent: events.emit });
    await serveCollections(flags.collection ?? [], logger, flags.watch !== false, extra);
    const writePolicy = flags.readOnly ? 'read-only' : flags.allowWrites ? 'autonomous' : 'stage';
    const options: ScryServerOptions = { engine, collections: extra.members, watch, writePolicy, version, events };
    const createServer = scryServerFactory(options);
    if (flags.http) {
      const http = await serveHttp({ host, port, createServer });
      io.err(`scry mcp: serving ${engine.root} at ${http.url} (Ctrl-C to stop)\n`);
      await signal.promise;
      await http.close();
    } else {
      const session = await serveStdio(createServer(), { stdin: process.stdin, stdout: process.stdout });
      await Promise.race([session.done, signal.promise]);
      await session.stop();
    }
    return 0;
  } finally {
    signal.dispose();
    for (const w of extra.watches) await w.close();
    for (const m of extra.members) m.engine.close();
    await watch?.close();
    engine?.close();
    restoreConsole();
  }
}
