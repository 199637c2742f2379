import type { Clock, Logger } from '../core/logger.js';
import type { FileCandidate, SkipReason } from '../core/file.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { checkPaths, walk } from '../discover/walk.js';
import type { IndexStore } from '../store/index-store.js';
import type { StoredFile } from '../store/file-repo.js';
import type { SkipRecord } from '../store/skip-repo.js';
import { INDEX_FEATURE_VERSION } from './feature-version.js';
import type { IndexReport } from './index-report.js';
import { inlinePreparer, workerCount, workerPreparer, type Preparer } from './prepare-pool.js';
import type { FallbackNote, PreparedBatch } from './prepare.js';
import { removeFile, writeBatch, type Tally } from './write-batch.js';
import type { ProgressListener } from './progress.js';

export interface IndexPassContext {
  readonly root: string;
  readonly config: ResolvedConfig;
  readonly store: IndexStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onProgress?: ProgressListener | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Only these files (relative, `/`-separated), without walking the tree: each is checked as the
   * walk would, then indexed, updated, or removed if it is gone or now excluded.
   */
  readonly paths?: readonly string[] | undefined;
}

/** Files per transaction, and bytes per transaction: small enough to keep a crash cheap. */
const BATCH_FILES = 500;
const BATCH_BYTES = 16 * 1024 * 1024;
/** Below this much work a worker thread costs more to start than it saves. */
const WORKER_MIN_BYTES = 4 * 1024 * 1024;
/**
 * A file modified this close to the moment it was indexed may have changed again within the
 * same mtime tick ("racy git"); such files are hashed on the next pass even if stat matches.
 */
const RACY_MS = 2000;

function needsWork(stored: StoredFile | undefined, c: FileCandidate): boolean {
  if (!stored) return true;
  if (stored.featureVersion !== INDEX_FEATURE_VERSION) return true;
  if (stored.size !== c.size || stored.mtimeMs !== c.mtimeMs) return true;
  return c.mtimeMs >= stored.indexedAtMs - RACY_MS;
}

/** A file refused for its content before, and unchanged since (not racy): no need to read it. */
function skippedBefore(record: SkipRecord | undefined, c: FileCandidate): boolean {
  if (!record || record.featureVersion !== INDEX_FEATURE_VERSION) return false;
  return record.size === c.size && record.mtimeMs === c.mtimeMs && c.mtimeMs < record.recordedAtMs - RACY_MS;
}

/** Logs a grammar fallback once per language and reason for the pass (status shows them all). */
function fallbackReporter(logger: Logger): (note: FallbackNote) => void {
  const seen = new Set<string>();
  return (note) => {
    const key = `${note.language}:${note.reason}`;
    if (seen.has(key)) return;
    seen.add(key);
    logger.warn(`${note.language}: chunked by line windows (${note.reason})`, { path: note.path, ...(note.detail ? { detail: note.detail } : {}) });
  };
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
  const walkOptions = { root: ctx.root, maxFileBytes: config.maxFileBytes, ignore: config.ignore, denylist: config.denylist };
  const scope = ctx.paths ? new Set(ctx.paths) : undefined;
  if (ctx.paths) {
    for (const check of checkPaths(walkOptions, ctx.paths)) {
      if (check.kind === 'file') candidates.push(check.candidate);
      else if (check.kind === 'skip') skip(check.reason);
    }
  } else {
    walk(walkOptions, { file: (c) => candidates.push(c), skip: (s) => skip(s.reason) });
  }
  const stored = store.read(() => (scope ? store.files.some([...scope]) : store.files.all()));
  const skips = store.read(() => store.skips.all());
  const seen = new Set(candidates.map((c) => c.path));
  const vanished = [...stored.values()].filter((s) => !seen.has(s.path));
  const forgotten = [...skips.keys()].filter((p) => !seen.has(p) && (!scope || scope.has(p)));
  if (vanished.length > 0 || forgotten.length > 0) {
    store.transaction(() => {
      for (const s of vanished) removeFile(store, s);
      for (const p of forgotten) store.skips.delete(p);
    });
    tally.removed += vanished.length;
  }

  let knownSkips = 0;
  const work = candidates.filter((c) => {
    if (!stored.has(c.path) && skippedBefore(skips.get(c.path), c)) {
      skip(skips.get(c.path)!.reason as SkipReason);
      knownSkips++;
      return false;
    }
    return needsWork(stored.get(c.path), c);
  });
  const bytesTotal = work.reduce((n, c) => n + c.size, 0);
  let filesDone = 0;
  let bytesDone = 0;
  ctx.onProgress?.({ phase: 'index', filesDone, filesTotal: work.length, bytesDone, bytesTotal });

  const batches: FileCandidate[][] = [];
  for (let i = 0; i < work.length; ) {
    const batch: FileCandidate[] = [];
    let batchBytes = 0;
    while (i < work.length && batch.length < BATCH_FILES && batchBytes < BATCH_BYTES) {
      batch.push(work[i]!);
      batchBytes += work[i]!.size;
      i++;
    }
    batches.push(batch);
  }
  const prepareConfig = { root: ctx.root, maxFileBytes: config.maxFileBytes, chunk: config.chunk, syntax: config.syntax };
  const large = bytesTotal >= WORKER_MIN_BYTES && batches.length > 1;
  // without tree-sitter, preparing is cheap enough that a second worker only competes with the writer
  const preparer: Preparer = large ? workerPreparer(prepareConfig, ctx.logger, config.syntax ? workerCount() : 1) : inlinePreparer(prepareConfig);
  const noteFallback = fallbackReporter(ctx.logger);
  // pipeline: the next batches are prepared (on the workers) while this one is written; the
  // workers are closed whatever happens, or they would keep the process alive
  const inflight: Array<Promise<PreparedBatch>> = [];
  let queued = 0;
  const fill = (): void => {
    while (queued < batches.length && inflight.length < preparer.parallelism) inflight.push(preparer.prepare(batches[queued++]!));
  };
  try {
    fill();
    for (let b = 0; b < batches.length; b++) {
      ctx.signal?.throwIfAborted();
      const prepared = await inflight.shift()!;
      fill();
      for (const f of prepared.fallbacks) noteFallback(f);
      writeBatch({ store, now: ctx.clock.now(), stored, skips, tally, skip }, prepared.files);
      filesDone += batches[b]!.length;
      bytesDone += batches[b]!.reduce((n, c) => n + c.size, 0);
      ctx.onProgress?.({ phase: 'index', filesDone, filesTotal: work.length, bytesDone, bytesTotal });
      await yieldToLoop();
    }
  } finally {
    for (const p of inflight) p.catch(() => {}); // an abort leaves batches in flight: their results are not wanted
    await preparer.close();
  }

  ctx.onProgress?.({ phase: 'finalize', filesDone, filesTotal: work.length, bytesDone, bytesTotal });
  const now = ctx.clock.now();
  store.transaction(() => {
    store.meta.set('root', ctx.root);
    store.meta.set('feature_version', INDEX_FEATURE_VERSION);
    store.meta.set('last_pass_at', now);
    store.meta.set('chunk_count', store.chunks.count());
    store.meta.set('file_count', store.files.count());
    if (!scope) store.meta.setJson('last_pass_skipped', tally.skipped);
  });
  if (large || tally.indexed > 1000) {
    store.optimize();
    store.checkpoint();
  }
  const report: IndexReport = {
    filesSeen: candidates.length,
    filesIndexed: tally.indexed,
    filesTouched: tally.touched,
    filesUnchanged: candidates.length - work.length - knownSkips,
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

