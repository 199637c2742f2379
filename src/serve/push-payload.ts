import * as z from 'zod';
import { EngineError } from '../core/errors.js';
import type { ChunkPayload, ContentPayload, PushManifest } from '../team/team-store.js';

/**
 * The wire format of a push (docs/DESIGN.md, "Team index"): one JSON body per step, parsed here
 * in full before anything is stored. A body that does not parse is refused whole (PUSH_INVALID,
 * naming the first bad field); the store checks what only it can (hashes against the bytes, every
 * manifest hash present). Unknown keys are refused, so a newer client's push fails loudly.
 */

/** Most hashes one `missing` request may ask about; most items in one `chunks`/`contents` batch. */
export const MAX_HASHES_PER_REQUEST = 50_000;
export const MAX_ITEMS_PER_BATCH = 50_000;
/** Most files in one manifest. */
export const MAX_MANIFEST_FILES = 1_000_000;

/** Repository names as the team store takes them: 1–200 of `[A-Za-z0-9._/@-]`, not starting with `.` or `/`, no `..`. */
export const REPO_NAME = /^(?![./])(?!.*\.\.)[A-Za-z0-9._/@-]{1,200}$/;
const repo = z.string().regex(REPO_NAME, 'not a repository name');
const sha = z.string().regex(/^[0-9a-f]{64}$/, 'not a sha256 (64 lower-case hex digits)');
const revision = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const base = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable();
const count = z.number().int().min(0).max(2 ** 31 - 1);
const shortText = z.string().max(4096);

const chunkPayload = z
  .object({
    hash: sha,
    length: count,
    // each posting's shape, order and hash are checked by the store (checkChunkPayload), once: a
    // second element-wise pass here cost 7% of a push's server time (bench/team-push.ts, ramda)
    postings: z.array(z.unknown()).max(1_000_000),
  })
  .strict();

const contentPayload = z.object({ hash: sha, body: z.string() }).strict();

const manifestChunk = z
  .object({
    ordinal: count,
    kind: z.string().min(1).max(40),
    startLine: count,
    endLine: count,
    startByte: count,
    endByte: count,
    hash: sha,
    postings: sha,
    symbol: shortText.nullable(),
    container: shortText.nullable(),
    signature: shortText.nullable(),
    tsMs: z.number().int().nullable(),
  })
  .strict()
  .refine((c) => c.endLine >= c.startLine && c.endByte >= c.startByte, { message: 'a chunk ends before it starts' });

const manifestFile = z
  .object({
    path: z.string().min(1).max(4096).refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\0'), 'not a relative path inside the repository'),
    language: z.string().min(1).max(40),
    contentType: z.enum(['code', 'docs', 'config', 'text']),
    content: sha,
    size: count,
    lineCount: count,
    chunks: z.array(manifestChunk).max(100_000),
  })
  .strict();

const manifest = z
  .object({ files: z.array(manifestFile).max(MAX_MANIFEST_FILES) })
  .strict()
  .refine((m) => new Set(m.files.map((f) => f.path)).size === m.files.length, { message: 'a path appears twice' });

const vectorEntry = z.tuple([sha, z.string().max(1_000_000).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64')]);

/** The body of each push step. `revision` and `base` come from the `begin` answer. */
export const pushBodies = {
  begin: z.object({ repo }).strict(),
  missing: z.object({ repo, chunks: z.array(sha).max(MAX_HASHES_PER_REQUEST), contents: z.array(sha).max(MAX_HASHES_PER_REQUEST) }).strict(),
  chunks: z.object({ repo, revision, base, chunks: z.array(chunkPayload).max(MAX_ITEMS_PER_BATCH) }).strict(),
  contents: z.object({ repo, revision, base, contents: z.array(contentPayload).max(MAX_ITEMS_PER_BATCH) }).strict(),
  vectors: z.object({ repo, revision, base, model: z.string().min(1).max(200), vectors: z.array(vectorEntry).max(MAX_ITEMS_PER_BATCH) }).strict(),
  files: z.object({ repo, revision, base, files: z.array(manifestFile).max(MAX_ITEMS_PER_BATCH) }).strict(),
  commit: z.object({ repo, revision, base, manifest }).strict(),
  abort: z.object({ repo, revision, base }).strict(),
} as const;

export type PushStep = keyof typeof pushBodies;
export const PUSH_STEPS = Object.keys(pushBodies) as readonly PushStep[];
export type PushBody<S extends PushStep> = z.output<(typeof pushBodies)[S]>;

/** Parses the body of one push step: the typed body, or PUSH_INVALID naming the first bad field. */
export function parsePushBody<S extends PushStep>(step: S, body: unknown): PushBody<S> {
  const parsed = pushBodies[step].safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map(String).join('.') || '(body)';
    throw new EngineError('PUSH_INVALID', { reason: `${step}: ${where.slice(0, 200)}: ${issue.message}` });
  }
  return parsed.data as PushBody<S>;
}

// the parsed shapes are the store's payload types (checked here at compile time)
export const asChunks = (b: PushBody<'chunks'>): ChunkPayload[] => b.chunks as ChunkPayload[];
export const asContents = (b: PushBody<'contents'>): ContentPayload[] => b.contents;
export const asManifest = (b: PushBody<'commit'>): PushManifest => b.manifest as PushManifest;
export const asFiles = (b: PushBody<'files'>): PushManifest['files'] => b.files as PushManifest['files'];

/** Bytes a batch adds to the push (what serve.maxPushBytes counts): bodies and postings as sent. */
export function payloadBytes(step: PushStep, body: PushBody<PushStep>): number {
  if (step === 'contents') return (body as PushBody<'contents'>).contents.reduce((n, c) => n + Buffer.byteLength(c.body), 0);
  if (step === 'chunks') return (body as PushBody<'chunks'>).chunks.reduce((n, c) => n + 8 + 16 * c.postings.length + 4 * c.length, 0);
  if (step === 'vectors') return (body as PushBody<'vectors'>).vectors.reduce((n, v) => n + v[1].length, 0);
  if (step === 'files') return (body as PushBody<'files'>).files.reduce((n, f) => n + f.path.length + 200 * (f.chunks.length + 1), 0);
  return 0;
}
