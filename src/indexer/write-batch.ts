import type { FileCandidate, SkipReason } from '../core/file.js';
import type { IndexStore } from '../store/index-store.js';
import type { StoredFile } from '../store/file-repo.js';
import type { SkipRecord } from '../store/skip-repo.js';
import { INDEX_FEATURE_VERSION } from './feature-version.js';
import { copyStoredRows } from './copy-rows.js';
import { replaceFileRow } from './file-row.js';
import { packedVector } from './chunk-vectors.js';
import { splitDoc } from './fts-fields.js';
import type { KnownFile, PreparedBatch, PreparedFile } from './prepare.js';

/** Counters of one pass, updated as batches are written. */
export interface Tally {
  indexed: number;
  /** Of `indexed`, files whose rows were copied from a stored file with the same content. */
  reused: number;
  touched: number;
  removed: number;
  chunks: number;
  bytes: number;
  skipped: Partial<Record<SkipReason, number>>;
  /** Contents parsed this pass, by hash: the token literals redacted in each (empty: none). */
  redactions: Map<string, Readonly<Record<string, number>>>;
}

/** Content-level refusals worth remembering: re-reading an unchanged file would only refuse it again. */
const REMEMBERED: ReadonlySet<SkipReason> = new Set(['binary', 'minified', 'secret', 'too_large', 'encrypted', 'no_text', 'malformed']);

export function removeFile(store: IndexStore, s: StoredFile): void {
  store.chunks.deleteForFile(s.id);
  store.structure.deleteForFile(s.id);
  store.files.delete(s.id);
  if (!store.files.isHashUsed(s.hash)) store.content.delete(s.hash);
}

export interface WriteContext {
  readonly store: IndexStore;
  readonly now: number;
  readonly stored: ReadonlyMap<string, StoredFile>;
  readonly skips: ReadonlyMap<string, SkipRecord>;
  readonly tally: Tally;
  readonly skip: (reason: SkipReason) => void;
}

/**
 * Writes one prepared batch in one transaction. Returns the files that were left unparsed for a
 * stored content that is no longer there to copy: they must be prepared again, without hints.
 */
export function writeBatch(ctx: WriteContext, prepared: Pick<PreparedBatch, 'files' | 'known' | 'vectors'>): FileCandidate[] {
  const again: FileCandidate[] = [];
  ctx.store.transaction(() => {
    for (const file of prepared.known) if (!writeKnown(ctx, file)) again.push(file.candidate);
    for (const file of prepared.files) {
      if (file.ok) writeParsed(ctx, file, prepared.vectors);
      else writeRefused(ctx, file);
    }
  });
  return again;
}

function writeRefused(ctx: WriteContext, file: Extract<PreparedFile, { ok: false }>): void {
  const { store, tally } = ctx;
  const { candidate } = file;
  ctx.skip(file.reason);
  if (REMEMBERED.has(file.reason)) {
    store.skips.put({ path: candidate.path, size: candidate.size, mtimeMs: candidate.mtimeMs, reason: file.reason, featureVersion: INDEX_FEATURE_VERSION, recordedAtMs: ctx.now });
  }
  const old = ctx.stored.get(candidate.path);
  if (old) {
    removeFile(store, old);
    tally.removed++;
  }
}

/** A file whose content the index holds: its stat is updated, or another file's rows copied. False if neither could be done. */
function writeKnown(ctx: WriteContext, file: KnownFile): boolean {
  const { store, tally } = ctx;
  const { candidate } = file;
  const old = ctx.stored.get(candidate.path);
  if (old && old.hash === file.hash && old.featureVersion === INDEX_FEATURE_VERSION) {
    store.files.touch(old.id, candidate.mtimeMs, file.size, ctx.now);
    tally.touched++;
  } else {
    if (file.known === 'unchanged') return false;
    const chunks = copyStoredRows(store, file, old, ctx.now);
    if (chunks === undefined) return false;
    tally.chunks += chunks;
    tally.indexed++;
    tally.reused++;
    tally.bytes += file.size;
  }
  if (ctx.skips.has(candidate.path)) store.skips.delete(candidate.path);
  return true;
}

function writeParsed(ctx: WriteContext, file: Extract<PreparedFile, { ok: true }>, vectors: PreparedBatch['vectors']): void {
  const { store, tally, now } = ctx;
  const { candidate } = file;
  const old = ctx.stored.get(candidate.path);
  if (ctx.skips.has(candidate.path)) store.skips.delete(candidate.path);
  if (old && old.hash === file.hash && old.featureVersion === INDEX_FEATURE_VERSION) {
    store.files.touch(old.id, candidate.mtimeMs, file.size, now);
    tally.touched++;
    return;
  }
  tally.redactions.set(file.hash, file.redactions);
  const fileId = replaceFileRow(store, candidate, file, old, now);
  store.structure.insert(fileId, file.symbols, file.imports);
  const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  // replaces a body stored by an older feature version (one that did not redact, say)
  store.content.putBytes(file.hash, bytes);
  if (old && old.hash !== file.hash && !store.files.isHashUsed(old.hash)) store.content.delete(old.hash);
  file.chunks.forEach((c, ordinal) => {
    const { body, doc } = splitDoc(bytes.subarray(c.startByte, c.endByte), c.docSpans);
    store.chunks.insert(
      fileId,
      { ordinal, kind: c.kind, startLine: c.startLine, endLine: c.endLine, startByte: c.startByte, endByte: c.endByte, hash: c.hash, symbol: c.symbol, container: c.container, signature: c.signature, defines: c.defines, tsMs: c.tsMs, docSpans: c.docSpans },
      { stem: file.stem, path: file.path, symbol: c.symbolField, signature: c.signatureField, body, parts: c.parts, doc },
    );
  });
  if (vectors && file.vectors) writeVectors(store, file, vectors);
  tally.chunks += file.chunks.length;
  tally.indexed++;
  tally.bytes += file.size;
}

/** The vectors a worker computed for a file's chunks (see chunk-vectors.ts): a text already embedded keeps its vector. */
function writeVectors(store: IndexStore, file: Extract<PreparedFile, { ok: true }>, vectors: NonNullable<PreparedBatch['vectors']>): void {
  const packed = file.vectors!;
  file.chunks.forEach((c, i) => {
    const v = packedVector(packed, vectors.stride, i);
    if (v) store.embeddings.putNew(vectors.model, c.hash, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
  });
}
