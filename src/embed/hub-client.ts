import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { EngineError } from '../core/errors.js';

/**
 * The two Hugging Face hub endpoints `scry models pull` uses, and nothing else:
 *
 *   GET {hubUrl}/api/models/{name}/revision/{revision}?blobs=true
 *       → { sha: <commit>, siblings: [{ rfilename, size?, lfs?: { sha256, size } }] }
 *   GET {hubUrl}/{name}/resolve/{commit}/{path}
 *       → the file (small files, with `ETag: "<git blob sha1>"`), or, for LFS files, a 302 to the
 *         hub's CDN carrying `X-Linked-Etag: "<sha256>"` and `X-Linked-Size`.
 *
 * Redirects are followed hop by hop (at most {@link MAX_REDIRECTS}, never from https to http), so
 * that the headers of the hub's own redirect can be read: the CDN the hub names is the only other
 * host a pull reaches. Nothing else in scry downloads models.
 */

/** Redirect hops followed for one file: a renamed repository, then the CDN. */
export const MAX_REDIRECTS = 5;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const SHA1_HEX = /^[0-9a-f]{40}$/;

/** One file of a repository at a commit, as the hub lists it. */
export interface HubFile {
  /** Path inside the repository (`onnx/model.onnx`). */
  readonly path: string;
  /** Bytes, when the listing reports them. */
  readonly size?: number | undefined;
  /** sha256 of the content, for files stored in LFS. */
  readonly sha256?: string | undefined;
}

/** A repository at a commit. */
export interface HubRevision {
  /** The commit the revision (branch, tag or sha) resolved to: 40 hex digits. */
  readonly commit: string;
  readonly files: readonly HubFile[];
}

/** Who is asking, and how: the model (for messages), the hub, the fetch to use, cancellation. */
export interface HubContext {
  readonly name: string;
  readonly hubUrl: string;
  readonly fetch: typeof fetch;
  readonly signal?: AbortSignal | undefined;
  /** A request that receives nothing (no headers, no bytes) for this long fails with IO_ERROR. */
  readonly stallMs: number;
}

/** What one file download produced. */
export interface DownloadedFile {
  readonly size: number;
  readonly sha256: string;
}

const base = (hubUrl: string): string => hubUrl.replace(/\/+$/, '');

/** `{hubUrl}/{name}/resolve/{commit}/{path}`, each path segment URL-encoded. */
export function resolveUrl(ctx: HubContext, commit: string, path: string): string {
  return `${base(ctx.hubUrl)}/${ctx.name}/resolve/${commit}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

function ioError(url: string, reason: string, cause?: unknown): EngineError {
  return new EngineError('IO_ERROR', { path: url, reason }, { cause, hint: 'check the network and that models.hubUrl (or --hub) points at a Hugging Face hub' });
}

/** Runs `run` under a stall timer that each `kick` restarts; a stall fails with IO_ERROR, the caller's abort with its reason. */
async function guarded<T>(ctx: HubContext, url: string, run: (signal: AbortSignal, kick: () => void) => Promise<T>): Promise<T> {
  const stall = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const kick = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(), ctx.stallMs);
  };
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stall.signal]) : stall.signal;
  kick();
  try {
    return await run(signal, kick);
  } catch (err) {
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    if (stall.signal.aborted) throw ioError(url, `nothing arrived for ${ctx.stallMs / 1000} s`, err);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function request(ctx: HubContext, url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
  try {
    return await ctx.fetch(url, { ...init, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw ioError(url, cause?.code ?? cause?.message ?? (err as Error).message, err);
  }
}

function asFile(raw: unknown): HubFile | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const s = raw as { rfilename?: unknown; size?: unknown; lfs?: { sha256?: unknown; size?: unknown } | null };
  if (typeof s.rfilename !== 'string') return undefined;
  const lfsSha = typeof s.lfs?.sha256 === 'string' && SHA256_HEX.test(s.lfs.sha256) ? s.lfs.sha256 : undefined;
  const size = typeof s.lfs?.size === 'number' ? s.lfs.size : typeof s.size === 'number' ? s.size : undefined;
  return { path: s.rfilename, size, sha256: lfsSha };
}

/** Asks the hub which commit `revision` is and which files it holds. */
export async function fetchRevision(ctx: HubContext, revision: string): Promise<HubRevision> {
  const url = `${base(ctx.hubUrl)}/api/models/${ctx.name}/revision/${encodeURIComponent(revision)}?blobs=true`;
  return guarded(ctx, url, (signal) => readRevision(ctx, url, revision, signal));
}

async function readRevision(ctx: HubContext, url: string, revision: string, signal: AbortSignal): Promise<HubRevision> {
  const res = await request(ctx, url, { headers: { accept: 'application/json' } }, signal);
  if (res.status === 401 || res.status === 404) {
    await res.body?.cancel();
    // the hub answers 401 for repositories that do not exist (or are private or gated)
    throw new EngineError('MODEL_NOT_FOUND', { model: `${ctx.name}@${revision}`, dir: base(ctx.hubUrl) }, {
      hint: 'check the model id (owner/name, case-sensitive) and --revision; private and gated models cannot be pulled',
    });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw ioError(url, `HTTP ${res.status}`);
  }
  let body: { sha?: unknown; siblings?: unknown };
  try {
    body = (await res.json()) as typeof body;
  } catch (err) {
    throw ioError(url, 'the answer is not JSON', err);
  }
  if (typeof body?.sha !== 'string' || !SHA1_HEX.test(body.sha) || !Array.isArray(body.siblings)) {
    throw ioError(url, 'the answer is not model info ({sha, siblings})');
  }
  const files = body.siblings.map(asFile).filter((f): f is HubFile => f !== undefined);
  return { commit: body.sha, files };
}

/** What the hub's headers promise about a file; every value present is checked. */
interface Promised {
  sha256: string[];
  gitSha1?: string;
  size?: number;
  contentLength?: number;
}

function unquote(etag: string | null): string | undefined {
  return etag?.replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

function readHeaders(res: Response, promised: Promised): void {
  const linked = unquote(res.headers.get('x-linked-etag'));
  if (linked && SHA256_HEX.test(linked)) promised.sha256.push(linked);
  const linkedSize = Number(res.headers.get('x-linked-size') ?? NaN);
  if (Number.isSafeInteger(linkedSize)) promised.size = linkedSize;
}

/**
 * GETs `url`, following redirects by hand so that the hub's own `X-Linked-*` headers can be read.
 * Hash headers count only from the hub's origin: a CDN's ETag is its own business (an S3 md5, a
 * Xet hash) and would fail good files.
 */
async function open(ctx: HubContext, url: string, promised: Promised, signal: AbortSignal): Promise<Response> {
  const hub = new URL(url).origin;
  let current = url;
  for (let hop = 0; ; hop++) {
    const res = await request(ctx, current, { redirect: 'manual', headers: { 'accept-encoding': 'identity' } }, signal);
    const fromHub = new URL(current).origin === hub;
    if (fromHub) readHeaders(res, promised);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || location === null) {
      if (fromHub) etagHeader(res, promised);
      return res;
    }
    await res.body?.cancel();
    const next = new URL(location, current);
    if (hop >= MAX_REDIRECTS) throw ioError(url, `more than ${MAX_REDIRECTS} redirects`);
    if (new URL(current).protocol === 'https:' && next.protocol !== 'https:') throw ioError(url, `refused a redirect from https to ${next.protocol}`);
    current = next.href;
  }
}

function etagHeader(res: Response, promised: Promised): void {
  const etag = res.headers.get('etag');
  const tag = unquote(etag);
  if (!tag || etag?.startsWith('W/')) return;
  // the hub's strong ETag is the git blob sha1 for plain files (40 hex digits), the sha256 for LFS ones
  if (SHA256_HEX.test(tag)) promised.sha256.push(tag);
  else if (SHA1_HEX.test(tag)) promised.gitSha1 = tag;
}

function lengthHeader(res: Response, promised: Promised): void {
  const encoding = res.headers.get('content-encoding');
  const length = Number(res.headers.get('content-length') ?? NaN);
  if ((encoding === null || encoding === 'identity') && Number.isSafeInteger(length)) promised.contentLength = length;
}

function mismatch(ctx: HubContext, path: string, reason: string): EngineError {
  return new EngineError('MODEL_INVALID', { model: ctx.name, reason: `${path}: ${reason}` }, {
    hint: 'nothing was activated and the previous copy, if any, is untouched; pull again, and check that models.hubUrl is a genuine hub if it persists',
  });
}

/**
 * Downloads `file` at `commit` into `dest` (which must not exist), streaming: the sha256 is computed
 * on the way and the bytes never sit in memory. The size is checked against Content-Length,
 * X-Linked-Size and the listing; the sha256 against X-Linked-Etag, a sha256 ETag and the listing's
 * LFS id; a git-sha1 ETag against the git blob hash. Throws MODEL_INVALID on a mismatch, IO_ERROR
 * when the transfer fails.
 */
export async function downloadFile(ctx: HubContext, commit: string, file: HubFile, dest: string, onBytes: (n: number) => void): Promise<DownloadedFile> {
  const url = resolveUrl(ctx, commit, file.path);
  return guarded(ctx, url, (signal, kick) => download(ctx, url, file, dest, signal, (n) => {
    kick();
    onBytes(n);
  }));
}

async function download(ctx: HubContext, url: string, file: HubFile, dest: string, signal: AbortSignal, onBytes: (n: number) => void): Promise<DownloadedFile> {
  const promised: Promised = { sha256: file.sha256 ? [file.sha256] : [], ...(file.size !== undefined ? { size: file.size } : {}) };
  const res = await open(ctx, url, promised, signal);
  if (!res.ok || res.body === null) {
    await res.body?.cancel();
    throw ioError(url, `HTTP ${res.status}`);
  }
  lengthHeader(res, promised);
  const knownSize = promised.contentLength ?? promised.size;
  const sha256 = createHash('sha256');
  const gitSha1: Hash | undefined = promised.gitSha1 && knownSize !== undefined ? createHash('sha1').update(`blob ${knownSize}\0`) : undefined;
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      sha256.update(chunk);
      gitSha1?.update(chunk);
      bytes += chunk.length;
      onBytes(chunk.length);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), meter, createWriteStream(dest, { flags: 'wx' }), { signal });
  } catch (err) {
    if (signal.aborted) throw err;
    if ((err as NodeJS.ErrnoException).syscall !== undefined) throw new EngineError('IO_ERROR', { path: dest, reason: (err as Error).message }, { cause: err });
    const of = knownSize !== undefined ? ` of ${knownSize}` : '';
    throw ioError(url, `the transfer broke off after ${bytes}${of} bytes (${(err as Error).message})`, err);
  }
  return check(ctx, file.path, promised, { size: bytes, sha256: sha256.digest('hex') }, gitSha1?.digest('hex'));
}

function check(ctx: HubContext, path: string, promised: Promised, got: DownloadedFile, gitSha1: string | undefined): DownloadedFile {
  if (promised.contentLength !== undefined && got.size !== promised.contentLength) {
    throw mismatch(ctx, path, `received ${got.size} bytes, Content-Length says ${promised.contentLength}`);
  }
  if (promised.size !== undefined && got.size !== promised.size) throw mismatch(ctx, path, `received ${got.size} bytes, the hub lists ${promised.size}`);
  for (const expected of promised.sha256) {
    if (got.sha256 !== expected) throw mismatch(ctx, path, `sha256 ${got.sha256} differs from the hub's ${expected}`);
  }
  if (gitSha1 !== undefined && gitSha1 !== promised.gitSha1) throw mismatch(ctx, path, `git blob sha1 ${gitSha1} differs from the hub's ETag ${promised.gitSha1}`);
  return got;
}
