import { chmodSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { shortHash } from '../core/hash.js';
import type { IndexProgress } from '../indexer/progress.js';
import type { IndexReport } from '../indexer/index-report.js';

/*
 * Handing an index request to the process that owns the index. The writer listens on a local
 * socket (a Unix socket beside the database, mode 0600; a named pipe on Windows) and says so in the
 * lock file. Another process that wants a pass sends one JSON line, then reads JSON lines back:
 * `queued` (with the owner's current pass progress while it waits), `progress` of its own pass,
 * and `done` or `error`. If the connection closes without an answer the owner went away: the
 * requester goes back to taking the lock itself. Nothing here is reachable from the network.
 */

/** What a requester asks for: the options of `Engine.index` that can cross a process boundary. */
export interface IndexRequest {
  readonly paths?: readonly string[] | undefined;
  readonly rebuild?: boolean | undefined;
}

export type HandoffMessage =
  | { readonly type: 'accepted'; readonly pid: number; readonly role: 'index' | 'watch' }
  | { readonly type: 'waiting'; readonly progress: IndexProgress }
  | { readonly type: 'progress'; readonly progress: IndexProgress }
  | { readonly type: 'done'; readonly report: IndexReport }
  | { readonly type: 'error'; readonly code: string; readonly message: string; readonly data?: Record<string, unknown> };

/** Longest request line accepted: paths lists are bounded by this. */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** Where the owner of `dbPath` listens. Short enough for the 104-byte limit of Unix socket paths. */
export function endpointFor(dbPath: string): string {
  const hash = shortHash(dbPath, 16);
  if (process.platform === 'win32') return `\\\\.\\pipe\\scry-${hash}`;
  const beside = `${dbPath}.sock`;
  return Buffer.byteLength(beside) < 100 ? beside : join(tmpdir(), `scry-${hash}.sock`);
}

/** One request being served: the owner reports progress and the outcome through it. */
export interface ServedRequest {
  readonly request: IndexRequest;
  /** True once the requester hung up: its pass is no longer wanted if it has not started. */
  readonly abandoned: boolean;
  send(message: HandoffMessage): void;
}

/** Validates a request line; throws INVALID_ARGUMENT. */
export function parseRequest(line: string): IndexRequest {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new EngineError('INVALID_ARGUMENT', { name: 'request', reason: 'not JSON' });
  }
  if (typeof value !== 'object' || value === null || (value as { op?: unknown }).op !== 'index') throw new EngineError('INVALID_ARGUMENT', { name: 'request', reason: 'op must be "index"' });
  const { paths, rebuild } = value as { paths?: unknown; rebuild?: unknown };
  if (paths !== undefined && (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string'))) throw new EngineError('INVALID_ARGUMENT', { name: 'paths', reason: 'must be an array of strings' });
  if (rebuild !== undefined && typeof rebuild !== 'boolean') throw new EngineError('INVALID_ARGUMENT', { name: 'rebuild', reason: 'must be a boolean' });
  return { paths: paths as string[] | undefined, rebuild: rebuild as boolean | undefined };
}

export function errorMessage(err: unknown): HandoffMessage {
  if (err instanceof EngineError) return { type: 'error', code: err.code, message: err.message, data: err.data as Record<string, unknown> };
  return { type: 'error', code: 'INTERNAL', message: err instanceof Error ? err.message : String(err), data: { reason: err instanceof Error ? err.message : String(err) } };
}

/** Calls back line by line, with a cap on the line length. */
function lines(socket: Socket, onLine: (line: string) => void, onTooLong: () => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== '') onLine(line);
    }
    if (buffered.length > MAX_REQUEST_BYTES) {
      buffered = '';
      onTooLong();
    }
  });
}

export interface HandoffServer {
  readonly endpoint: string;
  /** Stops listening and hangs up on every requester still waiting (they retry on their own). */
  close(): Promise<void>;
}

/**
 * Listens at `endpoint` (the caller holds the writer lock, so a socket file left there by a dead
 * owner is removed first) and hands each valid request to `onRequest`. A malformed request is
 * answered with an `error` line and the connection closed; it never reaches the owner.
 */
export async function serveHandoff(endpoint: string, info: { role: 'index' | 'watch' }, onRequest: (served: ServedRequest) => void): Promise<HandoffServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let abandoned = false;
    let answered = false;
    socket.on('close', () => {
      abandoned = true;
      sockets.delete(socket);
    });
    socket.on('error', () => {
      abandoned = true;
    });
    const send = (message: HandoffMessage): void => {
      if (abandoned || socket.destroyed) return;
      socket.write(`${JSON.stringify(message)}\n`);
      if (message.type === 'done' || message.type === 'error') socket.end();
    };
    lines(
      socket,
      (line) => {
        if (answered) return;
        answered = true;
        let request: IndexRequest;
        try {
          request = parseRequest(line);
        } catch (err) {
          send(errorMessage(err));
          return;
        }
        send({ type: 'accepted', pid: process.pid, role: info.role });
        onRequest({ request, send, get abandoned() { return abandoned; } });
      },
      () => send(errorMessage(new EngineError('INVALID_ARGUMENT', { name: 'request', reason: `longer than ${MAX_REQUEST_BYTES} bytes` }))),
    );
  });
  if (process.platform !== 'win32') {
    try {
      unlinkSync(endpoint);
    } catch {
      // nothing left behind
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(endpoint, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (process.platform !== 'win32') chmodSync(endpoint, 0o600);
  server.unref();
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The owner could not be reached, or went away before answering: take the lock instead. */
export class HandoffUnavailable extends Error {}

export interface HandoffOptions {
  readonly onAccepted?: ((owner: { pid: number; role: 'index' | 'watch' }) => void) | undefined;
  /** The owner's own pass, while this request waits behind it. */
  readonly onWaiting?: ((progress: IndexProgress) => void) | undefined;
  readonly onProgress?: ((progress: IndexProgress) => void) | undefined;
  /** Hangs up; the owner drops the request if its pass has not started. */
  readonly signal?: AbortSignal | undefined;
}

function toError(message: Extract<HandoffMessage, { type: 'error' }>): Error {
  if ((ERROR_CODES as readonly string[]).includes(message.code)) return new EngineError(message.code as ErrorCode, message.data ?? {});
  return new EngineError('INTERNAL', { reason: message.message });
}

/** Sends a request to the owner at `endpoint` and resolves with the report of its pass. */
export function requestIndex(endpoint: string, request: IndexRequest, options: HandoffOptions = {}): Promise<IndexReport> {
  return new Promise<IndexReport>((resolve, reject) => {
    options.signal?.throwIfAborted();
    const socket = createConnection(endpoint);
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      fn();
    };
    const onAbort = (): void => finish(() => reject(options.signal?.reason ?? new Error('aborted')));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('connect', () => socket.write(`${JSON.stringify({ op: 'index', ...request })}\n`));
    socket.on('error', (err) => finish(() => reject(new HandoffUnavailable(err.message))));
    socket.on('close', () => finish(() => reject(new HandoffUnavailable('the owner closed the connection before answering'))));
    lines(
      socket,
      (line) => {
        let message: HandoffMessage;
        try {
          message = JSON.parse(line) as HandoffMessage;
        } catch {
          finish(() => reject(new HandoffUnavailable('unreadable answer from the owner')));
          return;
        }
        if (message.type === 'accepted') options.onAccepted?.({ pid: message.pid, role: message.role });
        else if (message.type === 'waiting') options.onWaiting?.(message.progress);
        else if (message.type === 'progress') options.onProgress?.(message.progress);
        else if (message.type === 'done') finish(() => resolve(message.report));
        else if (message.type === 'error') finish(() => reject(toError(message)));
      },
      () => finish(() => reject(new HandoffUnavailable('answer too long'))),
    );
  });
}
