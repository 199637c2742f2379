import { EngineError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import type { PushManifest, PushSource } from '../team/team-store.js';
import { MAX_HASHES_PER_REQUEST, type PushStep } from './push-payload.js';

/** Default size of one request body of a push (below the server's default serve.maxBodyBytes of 8 MiB). */
export const DEFAULT_BATCH_BYTES = 4 * 1024 * 1024;
/** Bytes of a batch body besides its items (repo, revision, keys). */
const BATCH_ENVELOPE_BYTES = 4096;

export interface PushOptions {
  /** The server's base URL, e.g. `https://scry.example.com` (the API is under /api). */
  readonly server: string;
  readonly repo: string;
  readonly token: string;
  /** Bytes of JSON per batch request. Default 4 MiB. */
  readonly batchBytes?: number | undefined;
  /** Called after each request: the step and what was sent so far. */
  readonly onProgress?: ((step: PushStep, sent: PushReport['sent']) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** What `scry push` did (its `--json` output). */
export interface PushReport {
  readonly repo: string;
  readonly revision: number;
  readonly previous: number | null;
  readonly files: number;
  readonly chunks: number;
  /** What went over the wire: postings and bodies the server lacked, and the request bytes in all. */
  readonly sent: { chunks: number; contents: number; vectors: number; requests: number; bytes: number };
  /** Postings and bodies the server already had (not sent). */
  readonly skipped: { chunks: number; contents: number };
}

interface Wire {
  readonly post: (step: PushStep, body: unknown) => Promise<unknown>;
  /** The server's caps, set from the `begin` answer. */
  readonly limits: { maxBodyBytes: number; maxManifestBytes: number };
  readonly sent: { chunks: number; contents: number; vectors: number; requests: number; bytes: number };
}

/** An error answered by the server, rebuilt with its code (so the CLI exits as the server meant) and its message. */
function serverError(url: string, status: number, text: string): EngineError {
  let body: { error?: { code?: unknown; message?: unknown; hint?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const code = body?.error?.code;
  if (typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code)) {
    const err = new EngineError(code as ErrorCode, {}, typeof body?.error?.hint === 'string' ? { hint: body.error.hint } : undefined);
    Object.defineProperty(err, 'message', { value: `${String(body?.error?.message)} (server ${url}, HTTP ${status})` });
    return err;
  }
  return new EngineError('SERVER_FAILED', { url, reason: `HTTP ${status}: ${text.slice(0, 200)}` });
}

/** Whether a fetch failed because the connection closed before any answer (not a refusal or a timeout). */
function connectionDropped(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}

function wire(options: PushOptions): Wire {
  const base = options.server.replace(/\/+$/, '');
  const sent = { chunks: 0, contents: 0, vectors: 0, requests: 0, bytes: 0 };
  // unknown until `begin` answers; the server checks either way
  const limits = { maxBodyBytes: Number.MAX_SAFE_INTEGER, maxManifestBytes: Number.MAX_SAFE_INTEGER };
  const post = async (step: PushStep, body: unknown): Promise<unknown> => {
    const text = JSON.stringify(body);
    const url = `${base}/api/push/${step}`;
    const cap = step === 'commit' ? limits.maxManifestBytes : limits.maxBodyBytes;
    if (Buffer.byteLength(text) > cap) {
      throw new EngineError('TOO_LARGE', { what: `the ${step} request`, size: Buffer.byteLength(text), unit: 'bytes', limit: `${cap} bytes (the server's ${step === 'commit' ? 'serve.maxManifestBytes' : 'serve.maxBodyBytes'})` });
    }
    const send = (): Promise<Response> => fetch(url, { method: 'POST', headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' }, body: text, signal: options.signal });
    let res: Response;
    try {
      res = await send().catch((err: unknown) => {
        // a kept-alive connection the server closed as it was reused: every step but the commit
        // is safe to send again (a second `begin` leaves an empty revision the sweep removes)
        if (step === 'commit' || !connectionDropped(err)) throw err;
        return send();
      });
    } catch (err) {
      throw new EngineError('SERVER_FAILED', { url: base, reason: (err as { cause?: Error }).cause?.message ?? (err as Error).message }, { cause: err });
    }
    const answer = await res.text();
    if (!res.ok) throw serverError(base, res.status, answer);
    sent.requests++;
    sent.bytes += Buffer.byteLength(text);
    options.onProgress?.(step, sent);
    return JSON.parse(answer) as unknown;
  };
  return { post, sent, limits };
}

/** Splits items into batches whose JSON stays under `limit` bytes (an item larger than that goes alone). */
export function* batches<T>(items: Iterable<T>, limit: number): Generator<T[]> {
  let batch: T[] = [];
  let size = 0;
  for (const item of items) {
    const bytes = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (batch.length > 0 && size + bytes > limit) {
      yield batch;
      batch = [];
      size = 0;
    }
    batch.push(item);
    size += bytes;
  }
  if (batch.length > 0) yield batch;
}

const unique = (values: Iterable<string>): string[] => [...new Set(values)];

/** The postings and body hashes a manifest references. */
export function manifestHashes(manifest: PushManifest): { chunks: string[]; contents: string[] } {
  return { chunks: unique(manifest.files.flatMap((f) => f.chunks.map((c) => c.postings))), contents: unique(manifest.files.map((f) => f.content)) };
}

async function missing(w: Wire, repo: string, hashes: { chunks: string[]; contents: string[] }): Promise<{ chunks: string[]; contents: string[] }> {
  const out = { chunks: [] as string[], contents: [] as string[] };
  const n = Math.max(hashes.chunks.length, hashes.contents.length);
  for (let i = 0; i === 0 || i < n; i += MAX_HASHES_PER_REQUEST) {
    const answer = (await w.post('missing', { repo, chunks: hashes.chunks.slice(i, i + MAX_HASHES_PER_REQUEST), contents: hashes.contents.slice(i, i + MAX_HASHES_PER_REQUEST) })) as { chunks: string[]; contents: string[] };
    out.chunks.push(...answer.chunks);
    out.contents.push(...answer.contents);
  }
  return out;
}

/**
 * Pushes a local index to a team server as one new revision of `repo`: asks which postings and
 * bodies the server lacks, sends only those (in batches under `batchBytes`), then commits the
 * manifest, which makes the revision the one searches see. Any failure after the revision was
 * opened aborts it (best effort; the server's sweep drops it otherwise): the previous revision
 * stays served either way.
 */
export async function pushIndex(source: PushSource, options: PushOptions): Promise<PushReport> {
  const w = wire(options);
  const { repo } = options;
  const manifest = source.manifest;
  const all = manifestHashes(manifest);
  const begun = (await w.post('begin', { repo })) as { revision: number; base: number | null; limits: { maxBodyBytes: number; maxManifestBytes: number } };
  const rev = { repo, revision: begun.revision, base: begun.base };
  Object.assign(w.limits, begun.limits);
  // under the server's cap, with room for the envelope of the batch
  const limit = Math.min(options.batchBytes ?? DEFAULT_BATCH_BYTES, begun.limits.maxBodyBytes - BATCH_ENVELOPE_BYTES);
  try {
    const lacking = await missing(w, repo, all);
    for (const batch of batches(source.contents(lacking.contents), limit)) {
      await w.post('contents', { ...rev, contents: batch });
      w.sent.contents += batch.length;
    }
    for (const batch of batches(source.chunks(lacking.chunks), limit)) {
      await w.post('chunks', { ...rev, chunks: batch });
      w.sent.chunks += batch.length;
    }
    const vectors = source.vectors();
    if (vectors) {
      const encoded = vectors.vectors.map(([hash, v]) => [hash, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')] as const);
      for (const batch of batches(encoded, limit)) {
        await w.post('vectors', { ...rev, model: vectors.model, vectors: batch });
        w.sent.vectors += batch.length;
      }
    }
    // the manifest in batches too (each invisible until the commit), the commit itself small
    for (const batch of batches(manifest.files, limit)) await w.post('files', { ...rev, files: batch });
    const done = (await w.post('commit', { ...rev, manifest: { files: [] } })) as { revision: number; files: number; chunks: number; previous: number | null };
    return { repo, revision: done.revision, previous: done.previous, files: done.files, chunks: done.chunks, sent: { ...w.sent }, skipped: { chunks: all.chunks.length - lacking.chunks.length, contents: all.contents.length - lacking.contents.length } };
  } catch (err) {
    await w.post('abort', rev).catch(() => undefined);
    throw err;
  }
}
