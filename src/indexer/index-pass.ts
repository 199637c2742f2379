import { TRANSIENT_FALLBACKS } from '../core/chunk.js';
import { lastCommitDates } from '../discover/git-dates.js';
import type { Clock, Logger } from '../core/logger.js';
import type { FileCandidate, SkipReason } from '../core/file.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { checkPaths, walk } from '../discover/walk.js';
import type { IndexStore } from '../store/index-store.js';
import type { StoredFile } from '../store/file-repo.js';
import type { SkipRecord } from '../store/skip-repo.js';
import { INDEX_FEATURE_VERSION } from './feature-version.js';
import { updateRedactionLog } from './redaction-log.js';
import type { IndexReport } from './index-report.js';
import { inlinePreparer, workerCount, workerPreparer, type BatchHints, type Preparer } from './prepare-pool.js';
import { contentKey, type FallbackNote, type FileDone, type PrepareConfig, type PreparedBatch } from './prepare.js';
import { removeFile, writeBatch, type Tally, type WriteContext } from './write-batch.js';
import { SCAN_PROGRESS_EVERY, type ProgressListener } from './progress.js';

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
   * walk would, then indexed, updated, or removed if it is gone or now excluded. A path that is
   * not a directory on disk (gone, say) also removes every stored file under `path/`: a watcher
   * reports a deleted or renamed-away directory as one path.
   */
  readonly paths?: readonly string[] | undefined;
  /**
   * Time source of the wall-clock parse guard (config `parseTimeoutMs`); default monotonic. Used
   * on the main thread; worker threads of a large pass keep their own monotonic clock.
   */
  readonly parseClock?: Clock | undefined;
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
    const retry = TRANSIENT_FALLBACKS.has(note.reason) ? '; parsed again on the next pass' : '';
    logger.warn(`${note.language}: chunked by line windows (${note.reason}${retry})`, { path: note.path, ...(note.detail ? { detail: note.detail } : {}) });
  };
}

const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

/** What the walk (or the scoped paths) found. */
interface Scan {
  readonly candidates: FileCandidate[];
  /** Scoped paths that are not directories: nothing stored under `path/` can still be indexable. */
  readonly notDirectories: string[];
}

function scan(ctx: IndexPassContext, skip: (reason: SkipReason) => void): Scan {
  const { config } = ctx;
  const candidates: FileCandidate[] = [];
  const notDirectories: string[] = [];
  const walkOptions = { root: ctx.root, maxFileBytes: config.maxFileBytes, maxDocumentBytes: config.documents.maxBytes, ignore: config.ignore, denylist: config.denylist };
  if (ctx.paths) {
    for (const check of checkPaths(walkOptions, ctx.paths)) {
      if (check.kind === 'file') candidates.push(check.candidate);
      else if (check.kind === 'skip') skip(check.reason);
      // a deleted or renamed-away directory arrives as one missing path
      if (check.kind !== 'directory') notDirectories.push(check.path);
    }
  } else {
    const found = (c: FileCandidate): void => {
      candidates.push(c);
      if (candidates.length % SCAN_PROGRESS_EVERY === 0) ctx.onProgress?.({ phase: 'scan', filesDone: candidates.length, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
    };
    walk(walkOptions, { file: found, skip: (s) => skip(s.reason) });
  }
  return { candidates, notDirectories };
}

/** The stored side of the diff: files and skip records in scope, and those to drop (gone from disk or scope). */
interface StoredSide {
  readonly stored: Map<string, StoredFile>;
  readonly skips: Map<string, SkipRecord>;
  readonly vanished: StoredFile[];
  readonly forgotten: string[];
}

function storedSide(ctx: IndexPassContext, found: Scan): StoredSide {
  const { store } = ctx;
  const scope = ctx.paths ? new Set(ctx.paths) : undefined;
  const under = found.notDirectories.map((p) => `${p}/`);
  const stored = store.read(() => {
    if (!scope) return store.files.all();
    const some = store.files.some([...scope]);
    for (const dir of found.notDirectories) for (const s of store.files.under(dir)) some.set(s.path, s);
    return some;
  });
  const skips = store.read(() => store.skips.all());
  // a Set of every path seen only when some stored file was not (or the paths were given, and
  // might repeat): on a rescan, the walk's paths are distinct, and when every stored file was
  // seen, a path was seen if it is stored or among the few candidates that are not
  let matched = 0;
  const unstored = new Set<string>();
  for (const c of found.candidates) {
    if (stored.has(c.path)) matched++;
    else unstored.add(c.path);
  }
  const all = !scope && matched === stored.size ? undefined : new Set(found.candidates.map((c) => c.path));
  const seen = (p: string): boolean => (all ? all.has(p) : stored.has(p) || unstored.has(p));
  const inScope = (p: string): boolean => !scope || scope.has(p) || under.some((u) => p.startsWith(u));
  return {
    stored,
    skips,
    vanished: all ? [...stored.values()].filter((s) => !all.has(s.path)) : [],
    forgotten: [...skips.keys()].filter((p) => !seen(p) && inScope(p)),
  };
}

/** Cuts the work into batches of at most BATCH_FILES files and about BATCH_BYTES bytes. */
function cutBatches(work: readonly FileCandidate[]): FileCandidate[][] {
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
  return batches;
}

/** Content hashes of the batch's files as stored with the current feature version: an unchanged file is not parsed. */
function hintsFor(stored: ReadonlyMap<string, StoredFile>, batch: readonly FileCandidate[]): BatchHints {
  const hashes = new Map<string, string>();
  for (const c of batch) {
    const s = stored.get(c.path);
    if (s && s.featureVersion === INDEX_FEATURE_VERSION) hashes.set(c.path, s.hash);
  }
  return { stored: hashes, reuse: true };
}

/**
 * Inline for small passes, worker threads for large ones. Either way a file whose content a
 * stored file has is not parsed: inline asks the database, workers get the stored contents as
 * the pass begins (what this pass writes is not reused by its later batches then: parsed again).
 */
function choosePreparer(ctx: IndexPassContext, prepareConfig: PrepareConfig, large: boolean): Preparer {
  const { store, config } = ctx;
  if (!large) return inlinePreparer(prepareConfig, (hash, language) => store.read(() => store.files.hasContent(hash, language, INDEX_FEATURE_VERSION)), ctx.parseClock);
  const contents = store.read(() => store.files.contents(INDEX_FEATURE_VERSION)).map(([language, hash]) => contentKey(hash, language));
  // without tree-sitter, preparing is cheap enough that a second worker only competes with the writer
  return workerPreparer(prepareConfig, ctx.logger, config.syntax ? workerCount() : 1, contents);
}

/** A batch to prepare; `again`: files whose stored content was gone when written, parsed this time. */
interface QueuedBatch {
  readonly files: FileCandidate[];
  readonly again: boolean;
}

/**
 * The work with each file's last commit time (content timestamps, issue 22), read from git once
 * per pass, only when the recency boost is on (documents): code projects pay nothing for it.
 */
function withCommitDates(ctx: IndexPassContext, work: readonly FileCandidate[]): readonly FileCandidate[] {
  if (!(ctx.config.search.ranking.recency > 0) || work.length === 0) return work;
  const dates = lastCommitDates(ctx.root);
  return dates.size === 0 ? work : work.map((c) => (dates.has(c.path) ? { ...c, committedMs: dates.get(c.path) } : c));
}

/**
 * Prepares and writes the work. Pipelined: the next batches are prepared (on the workers) while
 * this one is written; the workers are closed whatever happens, or they would keep the process
 * alive. Returns whether the pass was large (worker threads).
 */
async function prepareAndWrite(ctx: IndexPassContext, work: readonly FileCandidate[], write: WriteContext): Promise<boolean> {
  const { config } = ctx;
  const bytesTotal = work.reduce((n, c) => n + c.size, 0);
  const progress = { filesDone: 0, filesTotal: work.length, bytesDone: 0, bytesTotal };
  ctx.onProgress?.({ phase: 'index', ...progress });
  const queue: QueuedBatch[] = cutBatches(withCommitDates(ctx, work)).map((files) => ({ files, again: false }));
  const prepareConfig = { root: ctx.root, maxFileBytes: config.maxFileBytes, chunk: config.chunk, syntax: config.syntax, parseTimeoutMs: config.parseTimeoutMs, documents: config.documents };
  const large = bytesTotal >= WORKER_MIN_BYTES && queue.length > 1;
  const preparer = choosePreparer(ctx, prepareConfig, large);
  const noteFallback = fallbackReporter(ctx.logger);
  const inflight: Array<Promise<PreparedBatch>> = [];
  let queued = 0;
  // per-file progress as files are prepared; a batch prepared again (a worker died) counts once
  const fileDone = (files: readonly FileCandidate[]): FileDone => {
    const seen = new Uint8Array(files.length);
    return (i) => {
      if (seen[i] || i >= files.length) return;
      seen[i] = 1;
      progress.filesDone++;
      progress.bytesDone += files[i]!.size;
      ctx.onProgress?.({ phase: 'index', ...progress });
    };
  };
  const fill = (): void => {
    for (; queued < queue.length && inflight.length < preparer.parallelism; queued++) {
      const q = queue[queued]!;
      inflight.push(preparer.prepare(q.files, q.again ? undefined : hintsFor(write.stored, q.files), q.again ? undefined : fileDone(q.files)));
    }
  };
  try {
    fill();
    for (let b = 0; b < queue.length; b++) {
      ctx.signal?.throwIfAborted();
      const prepared = await inflight.shift()!;
      fill();
      for (const f of prepared.fallbacks) noteFallback(f);
      const again = writeBatch(write, prepared);
      if (again.length > 0) queue.push({ files: again, again: true });
      fill();
      await yieldToLoop();
    }
  } finally {
    for (const p of inflight) p.catch(() => {}); // an abort leaves batches in flight: their results are not wanted
    await preparer.close();
  }
  return large;
}

/**
 * Drops files gone from disk (or from scope) and skip records of paths no longer seen. Done after
 * the new files are written, so that a renamed file's rows can still be copied from its old path;
 * a crash before this leaves the old paths indexed as well, and the next pass drops them.
 */
function removeVanished(store: IndexStore, side: StoredSide): void {
  const { vanished, forgotten } = side;
  for (let i = 0; i < Math.max(vanished.length, forgotten.length); i += BATCH_FILES) {
    store.transaction(() => {
      for (const s of vanished.slice(i, i + BATCH_FILES)) removeFile(store, s);
      for (const p of forgotten.slice(i, i + BATCH_FILES)) store.skips.delete(p);
    });
  }
}

/**
 * One incremental pass: walk, diff against the stored files by size+mtime then hash, re-chunk
 * what changed (copying the rows of a stored file with the same content instead, for renames and
 * copies), then drop what vanished. Work is committed in batches; a crash loses at most the
 * current batch, and the next pass picks up where this one stopped.
 */
export async function runIndexPass(ctx: IndexPassContext): Promise<IndexReport> {
  const started = ctx.clock.now();
  const { store } = ctx;
  const tally: Tally = { indexed: 0, reused: 0, touched: 0, removed: 0, chunks: 0, bytes: 0, skipped: {}, redactions: new Map() };
  const skip = (reason: SkipReason): void => {
    tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
  };

  ctx.onProgress?.({ phase: 'scan', filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
  const found = scan(ctx, skip);
  const { candidates } = found;
  const side = storedSide(ctx, found);
  const { stored, skips } = side;
  let knownSkips = 0;
  const work = candidates.filter((c) => {
    if (!stored.has(c.path) && skippedBefore(skips.get(c.path), c)) {
      skip(skips.get(c.path)!.reason as SkipReason);
      knownSkips++;
      return false;
    }
    return needsWork(stored.get(c.path), c);
  });
  const large = await prepareAndWrite(ctx, work, { store, now: ctx.clock.now(), stored, skips, tally, skip });

  const bytesTotal = work.reduce((n, c) => n + c.size, 0);
  ctx.onProgress?.({ phase: 'finalize', filesDone: work.length, filesTotal: work.length, bytesDone: bytesTotal, bytesTotal });
  removeVanished(store, side);
  tally.removed += side.vanished.length;
  const now = ctx.clock.now();
  store.transaction(() => {
    store.meta.set('root', ctx.root);
    store.meta.set('feature_version', INDEX_FEATURE_VERSION);
    store.meta.set('last_pass_at', now);
    store.meta.set('chunk_count', store.chunks.count());
    store.meta.set('file_count', store.files.count());
    if (!ctx.paths) store.meta.setJson('last_pass_skipped', tally.skipped);
    updateRedactionLog(store, tally.redactions);
  });
  if (large || tally.indexed > 1000) {
    store.optimize();
    store.checkpoint();
  }
  const report: IndexReport = {
    filesSeen: candidates.length,
    filesIndexed: tally.indexed,
    filesReused: tally.reused,
    filesTouched: tally.touched,
    filesUnchanged: candidates.length - work.length - knownSkips,
    filesRemoved: tally.removed,
    chunksWritten: tally.chunks,
    bytesIndexed: tally.bytes,
    skipped: tally.skipped,
    durationMs: ctx.clock.now() - started,
  };
  ctx.onProgress?.({ phase: 'done', filesDone: work.length, filesTotal: work.length, bytesDone: bytesTotal, bytesTotal });
  ctx.logger.info('index pass done', { ...report });
  return report;
}
