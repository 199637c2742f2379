import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

export interface StdioStreams {
  readonly stdin: Readable;
  /** Owned by the transport while serving: nothing else may write here (logs go to stderr). */
  readonly stdout: Writable;
}

/**
 * Serves one MCP session over newline-delimited JSON-RPC on the given streams (the CLI passes
 * the process's stdin/stdout). Resolves when the session ends: the client closes stdin, stdout
 * breaks (the client went away), or `stop` is called. A malformed line is skipped by the
 * transport and the session goes on.
 */
export async function serveStdio(server: Server, streams: StdioStreams): Promise<{ readonly done: Promise<void>; stop: () => Promise<void> }> {
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  const done = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  const stop = (): Promise<void> => server.close();
  const onGone = (): void => void stop().catch(() => undefined);
  streams.stdin.once('end', onGone);
  streams.stdin.once('close', onGone);
  // EPIPE when the client dies mid-write: end the session instead of crashing on an unhandled error
  streams.stdout.on('error', onGone);
  await server.connect(transport);
  return { done, stop };
}
