/**
 * The push payload's canonical forms and checks, shared by the client (which computes hashes)
 * and the server (which recomputes them: a repository's content-addressed rows can only hold
 * what their hash says). Pure: no I/O.
 */
import { EngineError } from '../core/errors.js';
import { CONTENT_TYPES } from '../core/file.js';
import { contentHash } from '../core/hash.js';
import { FTS_COLUMNS, type ChunkPayload, type ContentPayload, type ManifestFile, type PushManifest } from './team-store.js';

/** Longest term a posting may carry (FTS5 keeps a 1,025-digit constant of decimal.js whole). */
export const MAX_TERM_CHARS = 65_536;
/** Terms longer than this many UTF-8 bytes are stored under `termKey` (a B-tree entry holds about 2.7 KB). */
const MAX_TERM_KEY_BYTES = 512;

/**
 * How the team index stores a term: itself, or, past 512 bytes, its first 128 characters, `#` and
 * its sha256 (query terms go through the same function, so a long term still matches itself).
 */
export function termKey(term: string): string {
  return Buffer.byteLength(term, 'utf8') <= MAX_TERM_KEY_BYTES ? term : `${term.slice(0, 128)}#${contentHash(term)}`;
}

/** Longest repository name. */
export const MAX_REPO_NAME = 200;
const REPO_NAME = /^[A-Za-z0-9_@-][A-Za-z0-9._/@-]*$/;
const HASH = /^[0-9a-f]{64}$/;

/** INVALID_ARGUMENT unless `name` is a repository name (see `TeamRepo`). */
export function checkRepoName(name: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_REPO_NAME || !REPO_NAME.test(name) || name.includes('..') || name.includes('//')) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'repo', reason: `must be 1–${MAX_REPO_NAME} characters of letters, digits and ._/@- (not starting with . or /, no .. or //)` });
  }
  return name;
}

/** sha256 of a posting list's canonical JSON: `[length, postings]` with postings sorted by term, then column. */
export function postingsHash(length: number, postings: ChunkPayload['postings']): string {
  return contentHash(JSON.stringify([length, postings]));
}

/** sha256 of a body's UTF-8 bytes. */
export const bodyHash = (body: string): string => contentHash(Buffer.from(body, 'utf8'));

const bad = (reason: string): EngineError => new EngineError('PUSH_INVALID', { reason });

const isInt = (v: unknown, min = 0): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= 2 ** 31 - 1;

/** PUSH_INVALID unless `chunk` is well formed and its hash is the hash of its postings. */
export function checkChunkPayload(chunk: ChunkPayload): void {
  if (!chunk || typeof chunk.hash !== 'string' || !HASH.test(chunk.hash)) throw bad('a chunk hash is not 64 hex digits');
  if (!isInt(chunk.length) || !Array.isArray(chunk.postings)) throw bad(`chunk ${chunk.hash}: bad length or postings`);
  let prev: readonly [string, number] | undefined;
  let tokens = 0;
  for (const p of chunk.postings) {
    if (!Array.isArray(p) || p.length !== 3 || typeof p[0] !== 'string' || p[0].length === 0 || p[0].length > MAX_TERM_CHARS || p[0].includes('\0')) throw bad(`chunk ${chunk.hash}: malformed posting`);
    if (!isInt(p[1]) || p[1] >= FTS_COLUMNS.length || !Array.isArray(p[2]) || p[2].length === 0) throw bad(`chunk ${chunk.hash}: malformed posting`);
    if (prev && (prev[0] > p[0] || (prev[0] === p[0] && prev[1] >= p[1]))) throw bad(`chunk ${chunk.hash}: postings not sorted by term, column`);
    let last = -1;
    for (const pos of p[2]) {
      if (!isInt(pos) || pos <= last) throw bad(`chunk ${chunk.hash}: positions not ascending`);
      last = pos;
    }
    tokens += p[2].length;
    prev = [p[0], p[1]];
  }
  if (tokens !== chunk.length) throw bad(`chunk ${chunk.hash}: length ${chunk.length} but ${tokens} positions`);
  if (postingsHash(chunk.length, chunk.postings) !== chunk.hash) throw bad(`chunk ${chunk.hash}: the hash does not match the postings`);
}

/** PUSH_INVALID unless the body's hash is its sha256. */
export function checkContentPayload(content: ContentPayload): void {
  if (!content || typeof content.hash !== 'string' || !HASH.test(content.hash) || typeof content.body !== 'string') throw bad('malformed file body');
  if (bodyHash(content.body) !== content.hash) throw bad(`body ${content.hash}: the hash does not match the text`);
}

const optText = (v: unknown): boolean => v === null || (typeof v === 'string' && v.length <= 10_000);

function checkFile(f: ManifestFile, seen: Set<string>): void {
  if (!f || typeof f.path !== 'string' || f.path.length === 0 || f.path.length > 4096 || f.path.startsWith('/') || f.path.split('/').some((s) => s === '..' || s === '') || f.path.includes('\0')) throw bad('a file path is empty, absolute, or has empty or .. segments');
  if (seen.has(f.path)) throw bad(`${f.path} appears twice`);
  seen.add(f.path);
  if (typeof f.language !== 'string' || !(CONTENT_TYPES as readonly string[]).includes(f.contentType) || !HASH.test(String(f.content)) || !isInt(f.size) || !isInt(f.lineCount) || !Array.isArray(f.chunks)) throw bad(`${f.path}: malformed file entry`);
  for (const c of f.chunks) {
    const ok = c && isInt(c.ordinal) && typeof c.kind === 'string' && /^[a-z_-]{1,32}$/.test(c.kind) && isInt(c.startLine) && isInt(c.endLine) && c.endLine >= c.startLine
      && isInt(c.startByte) && isInt(c.endByte) && c.endByte >= c.startByte && HASH.test(String(c.hash)) && HASH.test(String(c.postings))
      && optText(c.symbol) && optText(c.container) && optText(c.signature) && (c.tsMs === null || (typeof c.tsMs === 'number' && Number.isFinite(c.tsMs)));
    if (!ok) throw bad(`${f.path}: malformed chunk entry`);
  }
}

/** PUSH_INVALID unless the manifest is well formed (every referenced hash is checked against the store at commit). */
export function checkManifest(manifest: PushManifest): void {
  if (!manifest || !Array.isArray(manifest.files)) throw bad('the manifest has no files list');
  const seen = new Set<string>();
  for (const f of manifest.files) checkFile(f, seen);
}
