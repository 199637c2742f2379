import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';

/*
 * The vector snapshot: the in-memory vectors of one model (FlatVectorIndex rows, their chunk ids
 * and content hashes) in one file beside the database, `<db>.vec`, so that a process that searches
 * once (the CLI) reads them with one file read and typed-array views instead of a join over every
 * chunk and a decode of every blob. It is a cache: the database stays the truth. Layout, little
 * endian, every section aligned to 8 bytes:
 *
 *   magic "SCRYVEC\0" | u32 version | u32 crc32 of every byte after this field | u32 header bytes
 *   | u32 dimensions | u32 storage (0 int8, 1 float32) | u32 rows | u32 model bytes | u32 stamp bytes
 *   | model (utf-8) | stamp (utf-8) | zero pad to 8
 *   | ids: f64 × rows | scales: f32 × rows (int8 only) | vectors: rows × dimensions (i8 or f32), pad to 8
 *   | hashes: 32 bytes × rows (a chunk's sha-256 content hash)
 *
 * A file whose magic, version, checksum, sizes or model differ from what the reader expects is
 * ignored (never served). It is written to a temporary file in the same directory and renamed
 * over the old one, so a reader sees a whole file or none, and of two writers the last rename wins
 * (each file whole). The stamp says which database state it holds (meta `vectors_stamp`).
 */

export const VECTOR_FILE_VERSION = 1;
const MAGIC = Buffer.from('SCRYVEC\0', 'latin1');
/** Bytes of the header before the model and stamp names. */
export const FIXED_HEADER = 40;
/** Bytes of a chunk content hash (sha-256) in the file. */
export const HASH_BYTES = 32;

export interface VectorFileData {
  /** The model fingerprint key the vectors are of. */
  readonly model: string;
  /** The meta `vectors_stamp` of the database state the rows are. */
  readonly stamp: string;
  readonly dimensions: number;
  readonly ids: Float64Array;
  readonly rows: Int8Array | Float32Array;
  /** int8 rows only: one scale a row. */
  readonly scales?: Float32Array | undefined;
  /** HASH_BYTES a row: the chunk's content hash. */
  readonly hashes: Uint8Array;
}

/** Where the snapshot of the database at `dbPath` lives. */
export function vectorFilePath(dbPath: string): string {
  return `${dbPath}.vec`;
}

const pad8 = (n: number): number => Math.ceil(n / 8) * 8;

/** The file's bytes. */
export function encodeVectorFile(data: VectorFileData): Buffer {
  const n = data.ids.length;
  const int8 = data.rows instanceof Int8Array;
  const model = Buffer.from(data.model, 'utf8');
  const stamp = Buffer.from(data.stamp, 'utf8');
  const headerBytes = pad8(FIXED_HEADER + model.length + stamp.length);
  const scaleBytes = int8 ? n * 4 : 0;
  const vectorBytes = pad8(data.rows.byteLength);
  const out = Buffer.alloc(headerBytes + n * 8 + scaleBytes + vectorBytes + n * HASH_BYTES);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(VECTOR_FILE_VERSION, 8);
  out.writeUInt32LE(headerBytes, 16);
  out.writeUInt32LE(data.dimensions, 20);
  out.writeUInt32LE(int8 ? 0 : 1, 24);
  out.writeUInt32LE(n, 28);
  out.writeUInt32LE(model.length, 32);
  out.writeUInt32LE(stamp.length, 36);
  model.copy(out, FIXED_HEADER);
  stamp.copy(out, FIXED_HEADER + model.length);
  let at = headerBytes;
  const put = (a: ArrayBufferView): void => {
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, at);
  };
  put(data.ids);
  at += n * 8;
  if (int8) {
    put(data.scales!);
    at += scaleBytes;
  }
  put(data.rows);
  at += vectorBytes;
  put(data.hashes);
  out.writeUInt32LE(crc32(out.subarray(16)), 12);
  return out;
}

/** The fixed header's fields, once checked against each other and the file's size. */
export interface VectorHeader {
  readonly crc: number;
  readonly headerBytes: number;
  readonly dimensions: number;
  readonly int8: boolean;
  readonly rows: number;
  readonly modelBytes: number;
  readonly stampBytes: number;
  /** Bytes of the rows section, padding included. */
  readonly vectorBytes: number;
}

/** The first FIXED_HEADER bytes of a file of `size` bytes, parsed; undefined when they are not a header of this version for that size. */
export function parseVectorHeader(fixed: Buffer, size: number): VectorHeader | undefined {
  if (fixed.length < FIXED_HEADER || !fixed.subarray(0, 8).equals(MAGIC) || fixed.readUInt32LE(8) !== VECTOR_FILE_VERSION) return undefined;
  const headerBytes = fixed.readUInt32LE(16);
  const dimensions = fixed.readUInt32LE(20);
  const storage = fixed.readUInt32LE(24);
  const n = fixed.readUInt32LE(28);
  const modelBytes = fixed.readUInt32LE(32);
  const stampBytes = fixed.readUInt32LE(36);
  if (storage > 1 || dimensions < 1 || headerBytes !== pad8(FIXED_HEADER + modelBytes + stampBytes)) return undefined;
  const int8 = storage === 0;
  const vectorBytes = pad8(n * dimensions * (int8 ? 1 : 4));
  if (size !== headerBytes + n * 8 + (int8 ? n * 4 : 0) + vectorBytes + n * HASH_BYTES) return undefined;
  return { crc: fixed.readUInt32LE(12), headerBytes, dimensions, int8, rows: n, modelBytes, stampBytes, vectorBytes };
}

/**
 * The snapshot in `bytes` when it is whole and of `model`; else undefined. Views, not copies, of
 * `bytes` where its alignment allows. Never throws on any input.
 */
export function decodeVectorFile(bytes: Uint8Array, model: string): VectorFileData | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = parseVectorHeader(buf, buf.length);
  if (!head || crc32(buf.subarray(16)) !== head.crc) return undefined;
  const { headerBytes, dimensions, int8, rows: n, modelBytes, stampBytes, vectorBytes } = head;
  if (buf.toString('utf8', FIXED_HEADER, FIXED_HEADER + modelBytes) !== model) return undefined;
  const stamp = buf.toString('utf8', FIXED_HEADER + modelBytes, FIXED_HEADER + modelBytes + stampBytes);
  let at = headerBytes;
  const ids = view(buf, at, n, Float64Array);
  at += n * 8;
  const scales = int8 ? view(buf, at, n, Float32Array) : undefined;
  at += int8 ? n * 4 : 0;
  const rows = int8 ? new Int8Array(buf.buffer, buf.byteOffset + at, n * dimensions) : view(buf, at, n * dimensions, Float32Array);
  at += vectorBytes;
  const hashes = new Uint8Array(buf.buffer, buf.byteOffset + at, n * HASH_BYTES);
  return { model, stamp, dimensions, ids, rows, scales, hashes };
}

/** A typed view of `n` elements at `at` (a copy when the buffer's offset leaves it unaligned). */
function view<T extends Float64Array | Float32Array>(buf: Buffer, at: number, n: number, Kind: { new (b: ArrayBufferLike, o: number, l: number): T; new (l: number): T; BYTES_PER_ELEMENT: number }): T {
  const offset = buf.byteOffset + at;
  if (offset % Kind.BYTES_PER_ELEMENT === 0) return new Kind(buf.buffer, offset, n);
  const copy = new Kind(n);
  Buffer.from(copy.buffer).set(buf.subarray(at, at + n * Kind.BYTES_PER_ELEMENT));
  return copy;
}

/** Reads the snapshot at `path` (one read); undefined when it is missing, unreadable, foreign or damaged. */
export function readVectorFile(path: string, model: string): VectorFileData | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  return decodeVectorFile(bytes, model);
}

/**
 * The model and stamp the header of the snapshot at `path` names, read without the body (nor its
 * checksum: a reader still checks the whole file); undefined when there is no readable header.
 */
export function readVectorFileHeader(path: string): { model: string; stamp: string } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const fixed = Buffer.alloc(FIXED_HEADER);
    if (readSync(fd, fixed, 0, FIXED_HEADER, 0) !== FIXED_HEADER || !fixed.subarray(0, 8).equals(MAGIC) || fixed.readUInt32LE(8) !== VECTOR_FILE_VERSION) return undefined;
    const modelBytes = fixed.readUInt32LE(32);
    const stampBytes = fixed.readUInt32LE(36);
    if (modelBytes + stampBytes > 4096) return undefined;
    const names = Buffer.alloc(modelBytes + stampBytes);
    if (readSync(fd, names, 0, names.length, FIXED_HEADER) !== names.length) return undefined;
    return { model: names.toString('utf8', 0, modelBytes), stamp: names.toString('utf8', modelBytes) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes the snapshot atomically (temporary file in the same directory, then rename). Returns the bytes written. */
export function writeVectorFile(path: string, data: VectorFileData): number {
  const bytes = encodeVectorFile(data);
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return bytes.length;
}
