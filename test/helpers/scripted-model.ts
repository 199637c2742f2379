/**
 * A local HTTP server that speaks the documented wire formats of OpenAI-compatible servers
 * (`POST /v1/chat/completions`, `POST /v1/completions` with server-sent events) and Ollama
 * (`POST /api/chat`, `POST /api/generate` with one JSON object per line), and replays scripted
 * model turns in order: text replies, native tool calls, raw (malformed) bodies, HTTP errors,
 * streams, and requests it never answers (timeouts). Every request is recorded. No model runs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Turn =
  /** A JSON body, sent as it is. */
  | { readonly json: unknown; readonly status?: number }
  /** A raw body (not JSON, truncated JSON...). */
  | { readonly raw: string; readonly status?: number }
  /** A streamed body: each line is written as its own chunk. `hang` leaves the stream open after them. */
  | { readonly lines: readonly string[]; readonly hang?: boolean }
  /** Never answers (the client's time limit or signal ends it). */
  | { readonly hang: true };

export interface RecordedRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly authorization?: string | undefined;
}

export interface ScriptedModel {
  /** Base URL for OpenAI-compatible config (`…/v1`). */
  readonly openaiUrl: string;
  /** Base URL for Ollama config. */
  readonly ollamaUrl: string;
  readonly requests: RecordedRequest[];
  /** Turns not yet replayed. */
  readonly pending: () => number;
  close(): Promise<void>;
}

/** Starts the server; `script` is replayed in order, and `fallback` (if any) answers every request after it. */
export async function startScriptedModel(script: readonly Turn[], fallback?: Turn): Promise<ScriptedModel> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        body = { unparsed: Buffer.concat(chunks).toString('utf8') };
      }
      requests.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
      const turn = queue.shift() ?? fallback;
      if (turn === undefined) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"the script has no more turns"}');
      if ('json' in turn) return void res.writeHead(turn.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(turn.json));
      if ('raw' in turn) return void res.writeHead(turn.status ?? 200, { 'content-type': 'application/json' }).end(turn.raw);
      open.add(res);
      res.on('close', () => open.delete(res));
      if (!('lines' in turn)) return; // hang
      res.writeHead(200, { 'content-type': req.url?.startsWith('/api/') ? 'application/x-ndjson' : 'text/event-stream' });
      for (const line of turn.lines) res.write(`${line}\n`);
      if (!turn.hang) res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    ollamaUrl: `http://127.0.0.1:${port}`,
    requests,
    pending: () => queue.length,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** OpenAI chat-completions reply with text. */
export const openaiText = (content: string): Turn => ({
  json: { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } },
});

/** OpenAI chat-completions reply with native tool calls (`arguments` as JSON text, possibly broken). */
export const openaiToolCalls = (calls: ReadonlyArray<{ id: string; name: string; arguments: string }>): Turn => ({
  json: {
    id: 'chatcmpl-2',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }, finish_reason: 'tool_calls' }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  },
});

/** Ollama /api/chat reply with text. */
export const ollamaText = (content: string): Turn => ({ json: { model: 'm', message: { role: 'assistant', content }, done: true, prompt_eval_count: 100, eval_count: 20 } });

/** Ollama /api/chat reply with native tool calls (`arguments` as an object, no ids). */
export const ollamaToolCalls = (calls: ReadonlyArray<{ name: string; arguments: Record<string, unknown> }>): Turn => ({
  json: { model: 'm', message: { role: 'assistant', content: '', tool_calls: calls.map((c) => ({ function: c })) }, done: true },
});

/** OpenAI /v1/completions stream (server-sent events) of text pieces. */
export const openaiStream = (pieces: readonly string[], opts: { done?: boolean; hang?: boolean } = {}): Turn => ({
  lines: [...pieces.map((text) => `data: ${JSON.stringify({ choices: [{ index: 0, text, finish_reason: null }] })}\n`), ...(opts.done === false ? [] : ['data: [DONE]\n'])],
  ...(opts.hang ? { hang: true } : {}),
});

/** Ollama /api/generate stream (one JSON object per line) of text pieces. */
export const ollamaStream = (pieces: readonly string[]): Turn => ({
  lines: [...pieces.map((response) => JSON.stringify({ model: 'm', response, done: false })), JSON.stringify({ model: 'm', response: '', done: true, done_reason: 'stop' })],
});
