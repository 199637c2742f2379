import type { Clock, Logger } from '../core/logger.js';
import type { FileCandidate, SkipReason } from '../core/file.js';
import { contentHash } from '../core/hash.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { readCandidate } from '../discover/read.js';
import { walk } from '../discover/walk.js';
import type { createChunkers } from '../parse/chunker.js';
import { LineTable } from '../parse/line-table.js';
import type { IndexStore } from '../store/index-store.js';
import type { StoredFile } from '../store/file-repo.js';
import { INDEX_FEATURE_VERSION } from './feature-version.js';
import { chunkFields, fileFields } from './fts-fields.js';
import type { IndexReport } from './index-report.js';
import type { ProgressListener } from './progress.js';

export interface IndexPassContext {
  readonly root: string;
  readonly config: ResolvedConfig;
  readonly store: IndexStore;
  readonly chunkers: ReturnType<typeof createChunkers>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onProgress?: ProgressListener | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Files per transaction, and bytes per transaction: small enough to keep a crash cheap. */
const BATCH_FILES = 500;
const BATCH_BYTES = 16 * 1024 * 1024;
/**
 * A file modified this close to the moment it was indexed may have changed again within the
 * same mtime tick ("racy git"); such files are hashed on the next pass even if stat matches.
 */
const RACY_MS = 2000;

interface Tally {
  indexed: number;
  touched: number;
  removed: number;
  chunks: number;
  bytes: number;
  skipped: Partial<Record<SkipReason, number>>;
}

function needsWork(stored: StoredFile | undefined, c: FileCandidate): boolean {
  if (!stored) return true;
  if (stored.featureVersion !== INDEX_FEATURE_VERSION) return true;
  if (stored.size !== c.size || stored.mtimeMs !== c.mtimeMs) return true;
  return c.mtimeMs >= stored.indexedAtMs - RACY_MS;
}

const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * One incremental pass: walk, diff against the stored files by size+mtime then hash, re-chunk
 * what changed, drop what vanished. Work is committed in batches; a crash loses at most the
 * current batch, and the next pass picks up where this one stopped.
 */
export async function runIndexPass(ctx: IndexPassContext): Promise<IndexReport> {
  const started = ctx.clock.now();
  const { store, config } = ctx;
  const tally: Tally = { indexed: 0, touched: 0, removed: 0, chunks: 0, bytes: 0, skipped: {} };
  const skip = (reason: SkipReason): void => {
    tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
  };

  ctx.onProgress?.({ phase: 'scan', filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
  const candidates: FileCandidate[] = [];
  walk({ root: ctx.root, maxFileBytes: config.maxFileBytes, ignore: config.ignore, denylist: config.denylist }, {
    file: (c) => candidates.push(c),
    skip: (s) => skip(s.reason),
  });
  const stored = store.read(() => store.files.all());
  const seen = new Set(candidates.map((c) => c.path));
  const vanished = [...stored.values()].filter((s) => !seen.has(s.path));
  if (vanished.length > 0) {
    store.transaction(() => {
      for (const s of vanished) removeFile(store, s);
    });
    tally.removed += vanished.length;
  }

  const work = candidates.filter((c) => needsWork(stored.get(c.path), c));
  const bytesTotal = work.reduce((n, c) => n + c.size, 0);
  let filesDone = 0;
  let bytesDone = 0;
  ctx.onProgress?.({ phase: 'index', filesDone, filesTotal: work.length, bytesDone, bytesTotal });

  for (let i = 0; i < work.length; ) {
    ctx.signal?.throwIfAborted();
    const batch: FileCandidate[] = [];
    let batchBytes = 0;
    while (i < work.length && batch.length < BATCH_FILES && batchBytes < BATCH_BYTES) {
      batch.push(work[i]!);
      batchBytes += work[i]!.size;
      i++;
    }
    indexBatch(ctx, batch, stored, tally, skip);
    filesDone += batch.length;
    bytesDone += batchBytes;
    ctx.onProgress?.({ phase: 'index', filesDone, filesTotal: work.length, bytesDone, bytesTotal });
    await yieldToLoop();
  }

  ctx.onProgress?.({ phase: 'finalize', filesDone, filesTotal: work.length, bytesDone, bytesTotal });
  const now = ctx.clock.now();
  store.transaction(() => {
    store.meta.set('root', ctx.root);
    store.meta.set('feature_version', INDEX_FEATURE_VERSION);
    store.meta.set('last_pass_at', now);
    store.meta.set('chunk_count', store.chunks.count());
    store.meta.set('file_count', store.files.count());
    store.meta.setJson('last_pass_skipped', tally.skipped);
  });
  if (tally.indexed > 1000) {
    store.optimize();
    store.checkpoint();
  }
  const report: IndexReport = {
    filesSeen: candidates.length,
    filesIndexed: tally.indexed,
    filesTouched: tally.touched,
    filesUnchanged: candidates.length - work.length,
    filesRemoved: tally.removed,
    chunksWritten: tally.chunks,
    bytesIndexed: tally.bytes,
    skipped: tally.skipped,
    durationMs: ctx.clock.now() - started,
  };
  ctx.onProgress?.({ phase: 'done', filesDone, filesTotal: work.length, bytesDone, bytesTotal });
  ctx.logger.info('index pass done', { ...report });
  return report;
}

function removeFile(store: IndexStore, s: StoredFile): void {
  store.chunks.deleteForFile(s.id);
  store.files.delete(s.id);
  if (!store.files.isHashUsed(s.hash)) store.content.delete(s.hash);
}

interface Prepared {
  readonly candidate: FileCandidate;
  readonly result: ReturnType<typeof readCandidate>;
}

function indexBatch(ctx: IndexPassContext, batch: FileCandidate[], stored: Map<string, StoredFile>, tally: Tally, skip: (r: SkipReason) => void): void {
  const { store, config } = ctx;
  // Read and decode outside the transaction; write everything in one transaction.
  const prepared: Prepared[] = batch.map((candidate) => ({ candidate, result: readCandidate(ctx.root, candidate, config.maxFileBytes) }));
  const now = ctx.clock.now();
  store.transaction(() => {
    for (const { candidate, result } of prepared) {
      const old = stored.get(candidate.path);
      if (!result.ok) {
        skip(result.reason);
        if (old) {
          removeFile(store, old);
          tally.removed++;
        }
        continue;
      }
      if (old && old.hash === result.hash && old.featureVersion === INDEX_FEATURE_VERSION) {
        store.files.touch(old.id, candidate.mtimeMs, result.size, now);
        tally.touched++;
        continue;
      }
      const table = new LineTable(result.text);
      const fileId = store.files.upsert({
        path: candidate.path,
        language: result.language,
        contentType: result.contentType,
        size: result.size,
        mtimeMs: candidate.mtimeMs,
        hash: result.hash,
        encoding: result.encoding,
        lineCount: table.count,
        featureVersion: INDEX_FEATURE_VERSION,
        indexedAtMs: now,
      });
      if (old) store.chunks.deleteForFile(fileId);
      store.content.put(result.hash, result.text);
      if (old && old.hash !== result.hash && !store.files.isHashUsed(old.hash)) store.content.delete(old.hash);
      tally.chunks += writeChunks(ctx, fileId, candidate.path, result.language, result.contentType, result.text);
      tally.indexed++;
      tally.bytes += result.size;
    }
  });
}

function writeChunks(ctx: IndexPassContext, fileId: number, path: string, language: string, contentType: FileCandidate['contentType'], text: string): number {
  const input = { path, language, contentType, text };
  const drafts = ctx.chunkers.forFile(input).chunk(input);
  const bytes = Buffer.from(text, 'utf8');
  const fields = fileFields(path);
  drafts.forEach((d, ordinal) => {
    const chunkText = bytes.subarray(d.startByte, d.endByte).toString('utf8');
    ctx.store.chunks.insert(
      fileId,
      { ordinal, kind: d.kind, startLine: d.startLine, endLine: d.endLine, startByte: d.startByte, endByte: d.endByte, hash: contentHash(chunkText), symbol: d.symbol ?? null, container: d.container ?? null },
      chunkFields(fields, d, chunkText),
    );
  });
  return drafts.length;
}
