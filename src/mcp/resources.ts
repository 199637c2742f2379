/**
 * Indexed files as MCP resources: `resources/list` (paginated, path order), the template
 * `scry://file/{path}`, `resources/read` (the file as it is on disk now, under read_file's rules:
 * inside the root with links resolved, secrets and denylisted files refused) and
 * `resources/subscribe`, answered with `notifications/resources/updated` when an index pass
 * changes (or removes) a subscribed file.
 */
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { isEngineError, type Engine } from '../index.js';

export const FILE_URI_PREFIX = 'scry://file/';

/** The resource template of indexed files. */
export const FILE_TEMPLATE: ResourceTemplate = {
  uriTemplate: `${FILE_URI_PREFIX}{path}`,
  name: 'file',
  title: 'Indexed file',
  description: 'A file of the project by its path relative to the root (URI-encoded per segment), e.g. scry://file/src/index.ts. Same rules as read_file: secrets and ignored files are refused.',
};

/** Resources per `resources/list` page. */
export const RESOURCE_PAGE_SIZE = 100;
/** listFiles' limit: pages beyond this many files are not listed (the template still reads them). */
const LIST_LIMIT = 10_000;
/** JSON-RPC error of an unknown resource (MCP spec, "Resources: error handling"). */
export const RESOURCE_NOT_FOUND = -32002;

/** `scry://file/src/a%20b.ts` for `src/a b.ts`: each segment URI-encoded, slashes kept. */
export function fileUri(path: string): string {
  return FILE_URI_PREFIX + path.split('/').map(encodeURIComponent).join('/');
}

/** The path of a `scry://file/...` URI, or InvalidParams. */
export function pathOfUri(uri: string): string {
  if (!uri.startsWith(FILE_URI_PREFIX)) throw new McpError(ErrorCode.InvalidParams, `not a scry file URI: ${uri} (expected ${FILE_URI_PREFIX}{path})`);
  let path: string;
  try {
    path = uri.slice(FILE_URI_PREFIX.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `malformed percent-encoding in ${uri}`);
  }
  if (path === '' || path.includes('\0')) throw new McpError(ErrorCode.InvalidParams, `no path in ${uri}`);
  return path;
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const o = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isSafeInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new McpError(ErrorCode.InvalidParams, 'invalid cursor: pass nextCursor from the previous resources/list result');
}

const MIME: Readonly<Record<string, string>> = { markdown: 'text/markdown', json: 'application/json', html: 'text/html', yaml: 'application/yaml', css: 'text/css' };
const mimeOf = (language: string): string => MIME[language] ?? 'text/plain';

/** `resources/list`: one page of indexed files in path order. */
export async function listResources(engine: Engine, cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const offset = decodeCursor(cursor);
  if (offset >= LIST_LIMIT) return { resources: [] };
  const listing = await engine.listFiles({ limit: Math.min(LIST_LIMIT, offset + RESOURCE_PAGE_SIZE + 1), includeHidden: true });
  const page = listing.files.slice(offset, offset + RESOURCE_PAGE_SIZE);
  const resources = page.map((f) => ({ uri: fileUri(f.path), name: f.path, title: f.path, mimeType: mimeOf(f.language), size: f.size }));
  const more = listing.files.length > offset + RESOURCE_PAGE_SIZE;
  return { resources, ...(more ? { nextCursor: encodeCursor(offset + RESOURCE_PAGE_SIZE) } : {}) };
}

/** Most bytes of one read_file slice; a longer file is read in slices up to the index's file size limit. */
const SLICE_BYTES = 200_000;

/** The whole file's text and hash, through engine.readFile (its path rules apply). */
export async function readWholeFile(engine: Engine, path: string): Promise<{ path: string; text: string; language: string; sha256: string }> {
  let slice = await engine.readFile(path, { maxBytes: SLICE_BYTES });
  const parts = [slice.text];
  let bytes = Buffer.byteLength(slice.text);
  while (slice.truncated && slice.endLine < slice.totalLines && bytes <= engine.config.maxFileBytes) {
    slice = await engine.readFile(path, { startLine: slice.endLine + 1, maxBytes: SLICE_BYTES });
    parts.push(slice.text);
    bytes += Buffer.byteLength(slice.text);
  }
  return { path: slice.path, text: parts.join(''), language: slice.language, sha256: slice.sha256 };
}

/** `resources/read`; engine errors keep their code in `data.code`. */
export async function readResource(engine: Engine, uri: string): Promise<ReadResourceResult> {
  const path = pathOfUri(uri);
  try {
    const file = await readWholeFile(engine, path);
    return { contents: [{ uri, mimeType: mimeOf(file.language), text: file.text, _meta: { sha256: file.sha256 } }] };
  } catch (err) {
    if (!isEngineError(err)) throw err;
    const code = err.code === 'FILE_NOT_FOUND' ? RESOURCE_NOT_FOUND : err.code === 'INTERNAL' || err.code === 'IO_ERROR' ? ErrorCode.InternalError : ErrorCode.InvalidParams;
    throw new McpError(code, `[${err.code}] ${err.message}`, { uri, code: err.code });
  }
}

/** What a subscribed file looked like at the last check: its hash, or null when it could not be read. */
type Seen = string | null;

/**
 * The subscriptions of one session: `subscribe` remembers the file's hash; `changed()` (called
 * after each index pass) re-reads the hashes and returns the URIs whose file changed or went away.
 */
export class Subscriptions {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly engine: Engine) {}

  get size(): number {
    return this.seen.size;
  }

  async subscribe(uri: string): Promise<void> {
    this.seen.set(uri, await this.hashOf(pathOfUri(uri)));
  }

  unsubscribe(uri: string): void {
    this.seen.delete(uri);
  }

  async changed(): Promise<string[]> {
    const out: string[] = [];
    for (const [uri, before] of this.seen) {
      const now = await this.hashOf(pathOfUri(uri));
      if (now !== before) out.push(uri);
      this.seen.set(uri, now);
    }
    return out;
  }

  private async hashOf(path: string): Promise<Seen> {
    try {
      return (await this.engine.readFile(path, { startLine: 1, endLine: 1, maxBytes: SLICE_BYTES })).sha256;
    } catch (err) {
      if (isEngineError(err)) return null;
      throw err;
    }
  }
}
