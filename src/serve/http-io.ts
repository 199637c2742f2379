import type { IncomingMessage, ServerResponse } from 'node:http';
import { EngineError, isEngineError, type ErrorCode } from '../core/errors.js';

/** HTTP status of each error code the server answers with; anything else is a 500. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  AUTH_REQUIRED: 401,
  ACCESS_DENIED: 403,
  INVALID_ARGUMENT: 400,
  QUERY_EMPTY: 400,
  QUERY_TOO_LONG: 400,
  PUSH_INVALID: 400,
  TOO_LARGE: 413,
  REVISION_NOT_OPEN: 409,
  FILE_NOT_FOUND: 404,
  PATH_OUTSIDE_ROOT: 400,
  REPO_NOT_FOUND: 404,
  TEAM_DB_FAILED: 503,
};

export function statusFor(err: unknown): number {
  return isEngineError(err) ? (STATUS[err.code] ?? 500) : 500;
}

/** The error body every endpoint answers with: the CLI's `--json` error shape. */
export function errorBody(err: unknown): { error: { code: ErrorCode; message: string; hint: string | null } } {
  const e = isEngineError(err) ? err : new EngineError('INTERNAL', { reason: err instanceof Error ? err.message : String(err) });
  return { error: { code: e.code, message: e.message, hint: e.hint ?? null } };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const status = statusFor(err);
  sendJson(res, status, errorBody(err), status === 401 ? { 'www-authenticate': 'Bearer realm="scry"' } : {});
}

/**
 * The body of a request as bytes, at most `limit` of them: a declared Content-Length over the
 * limit is refused before a byte is read, and a body that grows past it (chunked) is cut off,
 * both as TOO_LARGE. The connection is closed after the answer, so the rest is never read.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(declared, limit);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) throw tooLarge(size, limit);
    parts.push(part);
  }
  return Buffer.concat(parts);
}

function tooLarge(size: number, limit: number): EngineError {
  return new EngineError('TOO_LARGE', { what: 'the request body', size, unit: 'bytes', limit: `${limit} bytes` }, { hint: 'split the request (scry push sends batches below serve.maxBodyBytes), or raise serve.maxBodyBytes on the server' });
}

/** A JSON body: PUSH_INVALID when it is not JSON (the push endpoints are the only ones taking bodies besides /mcp). */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const bytes = await readBody(req, limit);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (err) {
    throw new EngineError('PUSH_INVALID', { reason: `the body is not JSON (${(err as Error).message})` });
  }
}
