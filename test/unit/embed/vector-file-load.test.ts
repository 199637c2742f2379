/**
 * Loading the vector snapshot straight into the index's memory, and the memo of an earlier crc
 * check (`<db>.vec.ok`, issue 19): the rows loaded are the file's, a damaged file is never served
 * with or without a memo, and a memo is recorded only for a settled file and used only for that
 * very file. Real files in a temporary directory; the clock is injected.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/logger.js';
import { loadVectorFile, SETTLED_MS } from '../../../src/embed/vector-file-load.js';
import { readVerifiedMemo, verifiedMemoPath } from '../../../src/embed/vector-file-memo.js';
import { HASH_BYTES, writeVectorFile, type VectorFileData } from '../../../src/embed/vector-file.js';
import { tempDir } from '../../helpers/temp.js';

const MODEL = 'builtin:test-model:96:v1';

/** `n` rows of `dimensions` int8 components (or float32), ids ascending with gaps, hashes from the id. */
function data(n: number, dimensions: number, storage: 'int8' | 'float32' = 'int8'): VectorFileData {
  const ids = Float64Array.from({ length: n }, (_, i) => 3 * i + 1);
  const rows = storage === 'int8' ? Int8Array.from({ length: n * dimensions }, (_, i) => ((i * 37) % 255) - 127) : Float32Array.from({ length: n * dimensions }, (_, i) => Math.sin(i));
  const scales = storage === 'int8' ? Float32Array.from({ length: n }, (_, i) => 0.001 * (i + 1)) : undefined;
  const hashes = Uint8Array.from({ length: n * HASH_BYTES }, (_, i) => (i * 7) % 256);
  return { model: MODEL, stamp: 'stamp-1', dimensions, ids, rows, scales, hashes };
}

const later: Clock = { now: () => Date.now() + 10 * SETTLED_MS };
/** A clock for which every file here was written just now (whatever the machine's speed). */
const justWritten: Clock = { now: () => Date.now() - 10 * SETTLED_MS };

/** Writes `bytes` in place (same inode) until the file's ctime differs from `before` (a later timestamp tick). */
async function rewriteInPlace(path: string, bytes: Uint8Array, before: bigint): Promise<void> {
  for (;;) {
    writeFileSync(path, bytes);
    if (statSync(path, { bigint: true }).ctimeNs !== before) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('loadVectorFile', () => {
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => (t = tempDir('scry-vecload-')));
  afterAll(() => t.cleanup());

  it('loads int8 and float32 rows, across chunk boundaries and with padding, as the file holds them', () => {
    for (const [n, d, storage] of [[20_000, 96, 'int8'], [10, 16, 'int8'], [9_000, 8, 'float32'], [300, 20, 'int8'], [5, 3, 'float32']] as const) {
      const path = join(t.dir, `rows-${n}-${d}-${storage}.vec`);
      const file = data(n, d, storage);
      writeVectorFile(path, file);
      const got = loadVectorFile(path, MODEL, { memo: false })!;
      expect(got.checked).toBe('crc');
      expect(got.stamp).toBe('stamp-1');
      const out = got.index.exportRows();
      expect([...out.ids]).toEqual([...file.ids]);
      expect(Buffer.from(out.rows.buffer, out.rows.byteOffset, out.rows.byteLength).equals(Buffer.from(file.rows.buffer))).toBe(true);
      if (file.scales) expect([...out.scales!]).toEqual([...file.scales]);
      expect(Buffer.from(got.hashes()!).equals(Buffer.from(file.hashes))).toBe(true);
    }
  });

  it('refuses another model, a missing file, a file of no rows', () => {
    const path = join(t.dir, 'model.vec');
    writeVectorFile(path, data(40, 16));
    expect(loadVectorFile(path, `${MODEL}x`, { memo: false })).toBeUndefined();
    expect(loadVectorFile(join(t.dir, 'none.vec'), MODEL)).toBeUndefined();
    writeVectorFile(path, data(0, 16));
    expect(loadVectorFile(path, MODEL, { memo: false })).toBeUndefined();
  });

  it('any byte flip or truncation on disk is refused (property), ids out of order included', () => {
    const path = join(t.dir, 'flip.vec');
    writeVectorFile(path, data(700, 16));
    const whole = readFileSync(path);
    fc.assert(
      fc.property(fc.nat(whole.length - 1), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const bad = Buffer.from(whole);
        bad[at] = bad[at]! ^ xor;
        writeFileSync(path, bad);
        expect(loadVectorFile(path, MODEL, { memo: false })).toBeUndefined();
      }),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(fc.nat(whole.length - 1), (length) => {
        writeFileSync(path, whole.subarray(0, length));
        expect(loadVectorFile(path, MODEL, { memo: false })).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('records a memo only for a settled file, then trusts it for that very file and no other', () => {
    const path = join(t.dir, 'memo.vec');
    writeVectorFile(path, data(500, 32));
    // just written: its ctime is now, so a write in the same timestamp tick could go unseen
    expect(loadVectorFile(path, MODEL, { clock: justWritten })!.checked).toBe('crc');
    expect(existsSync(verifiedMemoPath(path))).toBe(false);
    expect(loadVectorFile(path, MODEL, { clock: later })!.checked).toBe('crc');
    const memo = readVerifiedMemo(path)!;
    expect(memo.ino).toBe(statSync(path, { bigint: true }).ino);
    expect(loadVectorFile(path, MODEL)!.checked).toBe('memo');
    // another file renamed over it (new inode, new ctime): checked again
    writeVectorFile(path, data(500, 32));
    expect(loadVectorFile(path, MODEL)!.checked).toBe('crc');
    // a memo that is not JSON, or of another version: ignored
    writeFileSync(verifiedMemoPath(path), '{"version":1,"ino":');
    expect(readVerifiedMemo(path)).toBeUndefined();
    expect(loadVectorFile(path, MODEL)!.checked).toBe('crc');
  });

  it('a file of the current stamp trusted by its memo leaves its hashes in the file: read from that very file, or not at all once it is replaced', () => {
    const path = join(t.dir, 'lazy.vec');
    const file = data(400, 16);
    writeVectorFile(path, file);
    loadVectorFile(path, MODEL, { clock: later });
    const other = loadVectorFile(path, MODEL, { stamp: 'stamp-0' })!; // stale stamp: a delta follows, hashes read now
    const current = loadVectorFile(path, MODEL, { stamp: 'stamp-1' })!;
    expect([other.checked, current.checked]).toEqual(['memo', 'memo']);
    expect(Buffer.from(current.hashes()!).equals(Buffer.from(file.hashes))).toBe(true);
    const again = loadVectorFile(path, MODEL, { stamp: 'stamp-1' })!;
    writeVectorFile(path, { ...file, hashes: new Uint8Array(file.hashes.length) });
    expect(again.hashes()).toBeUndefined();
    expect(Buffer.from(other.hashes()!).equals(Buffer.from(file.hashes))).toBe(true);
  });

  it('a byte flipped in place after the memo was recorded is refused (property: same inode and size, later ctime)', async () => {
    const path = join(t.dir, 'inplace.vec');
    writeVectorFile(path, data(300, 16));
    const whole = readFileSync(path);
    const positions = fc.sample(fc.tuple(fc.nat(whole.length - 1), fc.integer({ min: 1, max: 255 })), 25);
    for (const [at, xor] of positions) {
      expect(loadVectorFile(path, MODEL, { clock: later })).toBeDefined();
      expect(loadVectorFile(path, MODEL)!.checked).toBe('memo');
      const bad = Buffer.from(whole);
      bad[at] = bad[at]! ^ xor;
      await rewriteInPlace(path, bad, readVerifiedMemo(path)!.ctimeNs);
      expect(loadVectorFile(path, MODEL)).toBeUndefined();
      await rewriteInPlace(path, whole, statSync(path, { bigint: true }).ctimeNs);
    }
  });
});
