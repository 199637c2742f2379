/**
 * A stand-in for the Hugging Face hub, on 127.0.0.1 with an ephemeral port: the real hub cannot be
 * reached from here, so this server speaks the parts of its HTTP interface `scry models pull` uses,
 * as the hub documents and answers them:
 *
 *   GET /api/models/{owner}/{name}/revision/{rev}[?blobs=true]
 *       → 200 { _id, id, modelId, sha, siblings: [{ rfilename }] }; with blobs=true each sibling
 *         also has { blobId (git blob sha1), size, lfs?: { sha256, size, pointerSize } }.
 *         An unknown repository is 401 `{"error":"Repository Not Found"}` (the hub does not say
 *         whether a private one exists); an unknown revision 404.
 *   GET /{owner}/{name}/resolve/{rev}/{path}
 *       → small files: 200 with `ETag: "<git blob sha1>"` and `X-Repo-Commit`;
 *         LFS files: 302 to the CDN with `X-Linked-Etag: "<sha256>"`, `X-Linked-Size` and
 *         `X-Repo-Commit`. The CDN's stand-in is a second listener (another port, so another
 *         origin, as cdn-lfs.hf.co is) serving `/cdn-lfs/{sha256}` with an ETag of its own (an
 *         S3-style md5 by default; `cdnEtag` can make it 64 hex digits that are not the sha256,
 *         as a Xet bridge's are), which a client must not take for the content's hash;
 *         a missing file is 404 with `X-Error-Code: EntryNotFound`.
 *
 * Failures are scripted per request with `fault`: an HTTP status, a body cut off after N bytes
 * (the socket is destroyed, Content-Length promised the whole file), a corrupted body (one byte
 * flipped, headers as for the real file), a delay, or no answer at all.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Which endpoint a request hit. */
export type HubRoute = 'api' | 'resolve' | 'cdn' | 'other';

export interface HubRequest {
  readonly method: string;
  readonly url: string;
  readonly route: HubRoute;
  /** The model id and file path, when the route names them. */
  readonly name?: string | undefined;
  readonly path?: string | undefined;
}

/** A scripted failure for one request; `undefined` answers normally. */
export type HubFault =
  | { readonly status: number }
  | { readonly truncateAt: number }
  | { readonly corrupt: true }
  | { readonly delayMs: number }
  | { readonly hang: true };

export interface HubRepoOptions {
  /** The commit `main` points at; default: derived from the files. */
  readonly sha?: string;
  /** Paths stored in LFS (served by redirect). Default: `*.onnx` and `*.bin`. */
  readonly lfs?: (path: string) => boolean;
}

interface StoredFile {
  readonly content: Buffer;
  readonly lfs: boolean;
  readonly sha256: string;
  readonly gitSha1: string;
}

interface StoredRepo {
  readonly sha: string;
  readonly files: Map<string, StoredFile>;
}

export interface HubServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  /** The CDN's stand-in, where LFS files are redirected. */
  readonly cdnUrl: string;
  /** The ETag the CDN sends for a file's content; default its md5 (32 hex digits). */
  cdnEtag: (content: Buffer) => string;
  readonly requests: HubRequest[];
  /** Adds (or replaces: a new commit) repository `name` with these files. */
  setRepo(name: string, files: Record<string, string | Buffer>, options?: HubRepoOptions): { sha: string };
  removeRepo(name: string): void;
  /** Decides failures; replace it between runs. */
  fault: (request: HubRequest) => HubFault | undefined;
  close(): Promise<void>;
}

export const sha256Of = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
export const gitBlobSha1 = (b: Buffer): string => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

const defaultLfs = (path: string): boolean => path.endsWith('.onnx') || path.endsWith('.bin');

/** Deterministic pseudo-random bytes (an "ONNX graph" that is big enough to arrive in many chunks). */
export function fakeBytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** The files of a typical ONNX embedding repository (Xenova-style), plus some a pull must skip. */
export function embeddingRepo(seed = 1, options: { onnx?: boolean; quantized?: boolean; tokenizer?: boolean } = {}): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {
    'config.json': JSON.stringify({ model_type: 'bert', hidden_size: 8, seed }),
    'tokenizer_config.json': JSON.stringify({ model_max_length: 512 }),
    'special_tokens_map.json': JSON.stringify({ cls_token: '[CLS]', sep_token: '[SEP]' }),
    'README.md': `# test model ${seed}\n`,
    'pytorch_model.bin': fakeBytes(4096, seed + 100),
    'onnx/model_fp16.onnx': fakeBytes(2048, seed + 200),
  };
  if (options.tokenizer !== false) files['tokenizer.json'] = JSON.stringify({ version: '1.0', model: { type: 'WordPiece', vocab: { '[UNK]': 0 } }, seed });
  if (options.onnx !== false) files['onnx/model.onnx'] = fakeBytes(300_000, seed);
  if (options.quantized) files['onnx/model_quantized.onnx'] = fakeBytes(80_000, seed + 300);
  return files;
}

export async function startHubServer(): Promise<HubServer> {
  const repos = new Map<string, StoredRepo>();
  const requests: HubRequest[] = [];

  const listener = (cdn: boolean) => (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://hub.invalid');
    const routed = routeOf(url.pathname);
    // the CDN serves only its own path, the hub everything else
    const request = { method: req.method ?? '', url: req.url ?? '', ...(cdn === (routed.route === 'cdn') ? routed : { route: 'other' as const }) };
    requests.push(request);
    const fault = handle.fault(request);
    if (fault !== undefined && 'hang' in fault) return;
    const answer = (): void => respond(repos, request, url, res, fault, handle);
    if (fault !== undefined && 'delayMs' in fault) setTimeout(answer, fault.delayMs);
    else answer();
  };
  const server = createServer(listener(false));
  const cdnServer = createServer(listener(true));
  const listen = async (s: Server): Promise<string> => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };
  const closeServer = (s: Server): Promise<void> =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });

  const handle: HubServer = {
    url: await listen(server),
    cdnUrl: await listen(cdnServer),
    cdnEtag: (content) => `"${createHash('md5').update(content).digest('hex')}"`,
    requests,
    setRepo(name, files, options = {}) {
      const stored = new Map<string, StoredFile>();
      for (const [path, raw] of Object.entries(files)) {
        const content = typeof raw === 'string' ? Buffer.from(raw) : raw;
        stored.set(path, { content, lfs: (options.lfs ?? defaultLfs)(path), sha256: sha256Of(content), gitSha1: gitBlobSha1(content) });
      }
      const digest = createHash('sha1').update(name);
      for (const [path, f] of [...stored].sort()) digest.update(`${path}:${f.sha256}\n`);
      const sha = options.sha ?? digest.digest('hex');
      repos.set(name, { sha, files: stored });
      return { sha };
    },
    removeRepo: (name) => void repos.delete(name),
    fault: () => undefined,
    close: async () => {
      await Promise.all([closeServer(server), closeServer(cdnServer)]);
    },
  };
  return handle;
}

function routeOf(pathname: string): { route: HubRoute; name?: string; path?: string; rev?: string } {
  const parts = pathname.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] === 'api' && parts[1] === 'models' && parts[4] === 'revision' && parts.length === 6) {
    return { route: 'api', name: `${parts[2]}/${parts[3]}`, rev: parts[5] };
  }
  if (parts[0] === 'cdn-lfs' && parts.length === 2) return { route: 'cdn', path: parts[1] };
  if (parts[2] === 'resolve' && parts.length >= 5) return { route: 'resolve', name: `${parts[0]}/${parts[1]}`, rev: parts[3], path: parts.slice(4).join('/') };
  return { route: 'other' };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function respond(repos: Map<string, StoredRepo>, request: HubRequest & { rev?: string }, url: URL, res: ServerResponse, fault: HubFault | undefined, hub: HubServer): void {
  if (fault !== undefined && 'status' in fault) return json(res, fault.status, { error: `scripted ${fault.status}` });
  if (request.route === 'cdn') {
    const file = [...repos.values()].flatMap((r) => [...r.files.values()]).find((f) => f.lfs && f.sha256 === request.path);
    if (file === undefined) return json(res, 404, { error: 'NoSuchKey' });
    return sendFile(res, file.content, { etag: hub.cdnEtag(file.content) }, fault);
  }
  const repo = request.name !== undefined ? repos.get(request.name) : undefined;
  if (request.route === 'other') return json(res, 404, { error: 'Not Found' });
  if (repo === undefined) return json(res, 401, { error: 'Repository Not Found' }, { 'x-error-code': 'RepoNotFound' });
  if (request.rev !== 'main' && request.rev !== repo.sha) return json(res, 404, { error: `Invalid rev id: ${request.rev}` }, { 'x-error-code': 'RevisionNotFound' });
  if (request.route === 'api') {
    const blobs = url.searchParams.get('blobs') === 'true';
    const siblings = [...repo.files].map(([rfilename, f]) =>
      blobs ? { rfilename, blobId: f.gitSha1, size: f.content.length, ...(f.lfs ? { lfs: { sha256: f.sha256, size: f.content.length, pointerSize: 134 } } : {}) } : { rfilename },
    );
    return json(res, 200, { _id: repo.sha.slice(0, 24), id: request.name, modelId: request.name, sha: repo.sha, siblings });
  }
  const file = repo.files.get(request.path ?? '');
  if (file === undefined) return json(res, 404, { error: 'Entry not found' }, { 'x-error-code': 'EntryNotFound' });
  const common = { 'x-repo-commit': repo.sha };
  if (file.lfs) {
    res.writeHead(302, { ...common, location: `${hub.cdnUrl}/cdn-lfs/${file.sha256}?X-Amz-Signature=test`, 'x-linked-etag': `"${file.sha256}"`, 'x-linked-size': String(file.content.length) });
    return void res.end();
  }
  return sendFile(res, file.content, { ...common, etag: `"${file.gitSha1}"` }, fault);
}

function sendFile(res: ServerResponse, content: Buffer, headers: Record<string, string>, fault: HubFault | undefined): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(content.length), ...headers });
  if (fault !== undefined && 'truncateAt' in fault) {
    res.write(content.subarray(0, fault.truncateAt), () => res.destroy());
    return;
  }
  let body = content;
  if (fault !== undefined && 'corrupt' in fault) {
    body = Buffer.from(content);
    body[Math.floor(body.length / 2)]! ^= 0xff;
  }
  res.end(body);
}
