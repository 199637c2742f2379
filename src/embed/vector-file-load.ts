import { closeSync, fstatSync, fsyncSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { crc32 } from 'node:zlib';
import { systemClock, type Clock } from '../core/logger.js';
import { FlatVectorIndex, type DenseBlock } from './flat-scan.js';
import { readVerifiedMemo, recordVerified, type FileIdentity } from './vector-file-memo.js';
import { FIXED_HEADER, HASH_BYTES, parseVectorHeader, readVectorFile, type VectorHeader } from './vector-file.js';

/*
 * Loading the vector snapshot (`<db>.vec`, layout in ./vector-file.ts) for a search: the file's
 * sections are read with `readSync` straight into the arrays and the FlatVectorIndex memory that
 * keep them (the ids into the index's id array, each chunk's rows and scales into its block of
 * WebAssembly memory), so the 26 MB of the npm corpus are read once and copied never, and no
 * file-sized buffer is left for the garbage collector.
 *
 * Integrity. The crc32 of the whole file is checked, over those arrays in file order, unless the
 * file is one this machine has already checked: `<db>.vec.ok` (./vector-file-memo.ts) records the
 * identity of the last file verified (inode, size, change and modification times to the
 * nanosecond, the crc in its header). Any write to a file changes its change time (ctime), which
 * no program can set back, and a replaced file is another inode with a later ctime; the memo is
 * only recorded for a file whose ctime was the same before and after the check and at least
 * `SETTLED_MS` in the past, so a later write cannot fall within the same timestamp tick. A file
 * whose identity differs in any field is checked in full again, and one trusted by its memo is
 * served only if its identity is the same after the read as before. So a truncated, flipped, torn,
 * foreign or other-model file is never served, with or without a memo.
 */

/** A file's ctime must be this far behind the clock before its check is remembered (timestamp granularity: 1–2 s on coarse filesystems). */
export const SETTLED_MS = 3000;

export interface LoadedVectorFile {
  readonly index: FlatVectorIndex;
  readonly stamp: string;
  readonly ids: Float64Array;
  /**
   * HASH_BYTES a row, in `ids` order; undefined when they were left in the file (trusted by memo,
   * stamp current: only a later delta needs them) and the file has since been replaced.
   */
  readonly hashes: () => Uint8Array | undefined;
  /** How the file's integrity was established: its crc computed now, or a memo of an earlier check of this very file. */
  readonly checked: 'crc' | 'memo';
}

export interface LoadVectorFileOptions {
  /** For the `SETTLED_MS` rule; default the system clock. */
  readonly clock?: Clock | undefined;
  /** Read and write `<db>.vec.ok`; default true. False: the crc is always computed. */
  readonly memo?: boolean | undefined;
  /**
   * The database's current vectors stamp: a file of that stamp trusted by its memo leaves its
   * hashes (6 MB on the npm corpus) in the file until asked for; any other file is about to
   * have a delta applied, which needs them at once.
   */
  readonly stamp?: string | undefined;
}

/** Fills `into` from `fd` at `position`; throws on a short read (a file that shrank). */
function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.byteLength) {
    const got = readSync(fd, into, done, into.byteLength - done, position + done);
    if (got === 0) throw new Error('short read');
    done += got;
  }
}

const identityOf = (st: BigIntStats, crc: number): FileIdentity => ({ ino: st.ino, size: st.size, ctimeNs: st.ctimeNs, mtimeNs: st.mtimeNs, crc });
const sameIdentity = (a: FileIdentity, b: FileIdentity): boolean =>
  a.ino === b.ino && a.size === b.size && a.ctimeNs === b.ctimeNs && a.mtimeNs === b.mtimeNs && a.crc === b.crc;

/**
 * The snapshot at `path` loaded into a new FlatVectorIndex when it is whole and of `model`;
 * undefined when it is missing, unreadable, foreign, damaged or holds no row. Never throws.
 */
export function loadVectorFile(path: string, model: string, options: LoadVectorFileOptions = {}): LoadedVectorFile | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const before = fstatSync(fd, { bigint: true });
    const fixed = Buffer.alloc(FIXED_HEADER);
    readFully(fd, fixed, 0);
    const head = parseVectorHeader(fixed, Number(before.size));
    if (!head || head.rows === 0) return undefined;
    const names = Buffer.alloc(head.headerBytes - FIXED_HEADER);
    readFully(fd, names, FIXED_HEADER);
    if (names.toString('utf8', 0, head.modelBytes) !== model) return undefined;
    const identity = identityOf(before, head.crc);
    const memo = options.memo === false ? undefined : readVerifiedMemo(path);
    const trusted = memo !== undefined && sameIdentity(memo, identity);
    const stamp = names.toString('utf8', head.modelBytes, head.modelBytes + head.stampBytes);
    const leaveHashes = trusted && options.stamp !== undefined && stamp === options.stamp;
    const loaded = readBody(fd, head, stamp, !leaveHashes);
    if (!loaded) return fallback(path, model);
    if (trusted) {
      // the memo vouches for the bytes of that identity only: a file written to while it was read is not served
      if (!sameIdentity(identityOf(fstatSync(fd, { bigint: true }), head.crc), identity)) return undefined;
      const { hashes } = loaded;
      return { ...loaded.file, hashes: hashes ? () => hashes : () => readHashesLater(path, identity, head), checked: 'memo' };
    }
    if (crcOf(fixed, names, loaded.parts) !== head.crc) return undefined;
    if (options.memo !== false) remember(fd, path, identity, (options.clock ?? systemClock).now());
    const hashes = loaded.hashes!;
    return { ...loaded.file, hashes: () => hashes, checked: 'crc' };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The crc32 the header records: every byte after the crc field, in file order. */
function crcOf(fixed: Buffer, names: Buffer, parts: readonly Uint8Array[]): number {
  let crc = crc32(names, crc32(fixed.subarray(16)));
  for (const part of parts) crc = crc32(part, crc);
  return crc;
}

/** Where the hashes section of a file with this header starts. */
const hashesAt = (head: VectorHeader): number => head.headerBytes + head.rows * 8 + (head.int8 ? head.rows * 4 : 0) + head.vectorBytes;

/**
 * Reads the body into a new index, and the hashes when `withHashes`. `parts` are the views of
 * every byte after the header in file order (ids, scales, rows, padding, hashes), for the crc.
 * Undefined when the rows cannot be loaded as dense blocks (ids out of order: a damaged file; or
 * dimensions that need padding).
 */
function readBody(fd: number, head: VectorHeader, stamp: string, withHashes: boolean): { file: Omit<LoadedVectorFile, 'checked' | 'hashes'>; hashes: Uint8Array | undefined; parts: Uint8Array[] } | undefined {
  const { rows: n, dimensions: d, int8 } = head;
  const ids = new Float64Array(n);
  readFully(fd, new Uint8Array(ids.buffer), head.headerBytes);
  const index = new FlatVectorIndex({ dimensions: d, storage: int8 ? 'int8' : 'float32' });
  const width = d * (int8 ? 1 : 4);
  const scalesAt = head.headerBytes + n * 8;
  const rowsAt = scalesAt + (int8 ? n * 4 : 0);
  const scaleParts: Uint8Array[] = [];
  const rowParts: Uint8Array[] = [];
  const dense = index.addDenseBlocks(ids, (b: DenseBlock) => {
    readFully(fd, b.rows, rowsAt + b.start * width);
    rowParts.push(b.rows);
    if (b.scales) {
      readFully(fd, b.scales, scalesAt + b.start * 4);
      scaleParts.push(b.scales);
    }
  });
  if (!dense) return undefined;
  const pad = new Uint8Array(head.vectorBytes - n * width);
  readFully(fd, pad, rowsAt + n * width);
  const hashes = withHashes ? new Uint8Array(n * HASH_BYTES) : undefined;
  if (hashes) readFully(fd, hashes, hashesAt(head));
  return { file: { index, stamp, ids }, hashes, parts: [new Uint8Array(ids.buffer), ...scaleParts, ...rowParts, pad, ...(hashes ? [hashes] : [])] };
}

/** The hashes of a memo-trusted file, read when first needed: only from that very file (same identity), else undefined. */
function readHashesLater(path: string, identity: FileIdentity, head: VectorHeader): Uint8Array | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    if (!sameIdentity(identityOf(fstatSync(fd, { bigint: true }), identity.crc), identity)) return undefined;
    const hashes = new Uint8Array(head.rows * HASH_BYTES);
    readFully(fd, hashes, hashesAt(head));
    return hashes;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Rows that need padding or ids out of order: the whole file decoded and checked, rows added one by one (or refused). */
function fallback(path: string, model: string): LoadedVectorFile | undefined {
  const file = readVectorFile(path, model);
  if (!file || file.ids.length === 0) return undefined;
  const index = new FlatVectorIndex({ dimensions: file.dimensions, storage: file.rows instanceof Int8Array ? 'int8' : 'float32' });
  index.addRows(file.ids, file.rows, file.scales); // throws on an id that is not an integer: caught, not served
  return { index, stamp: file.stamp, ids: file.ids, hashes: () => file.hashes, checked: 'crc' };
}

/**
 * Records that the file open at `fd` passed its crc, when that record can only ever match this
 * content: its ctime unchanged by the check and `SETTLED_MS` old. The file is flushed to disk
 * first (no memo may outlive, after a crash, the bytes it vouches for). A failure is ignored.
 */
function remember(fd: number, path: string, identity: FileIdentity, now: number): void {
  try {
    const after = identityOf(fstatSync(fd, { bigint: true }), identity.crc);
    if (!sameIdentity(after, identity) || Number(identity.ctimeNs / 1_000_000n) > now - SETTLED_MS) return;
    fsyncSync(fd);
    recordVerified(path, identity);
  } catch {
    // a read-only directory: the next reader checks the crc again
  }
}
