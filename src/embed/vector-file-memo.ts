import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/*
 * `<db>.vec.ok`: that the vector snapshot `<db>.vec` with this identity passed its crc32 check
 * here, so that the next reader of the same file need not compute it again (11 ms of 26 MB on the
 * npm corpus, at every CLI search). One small JSON object, written atomically; when missing,
 * unreadable or of another file it is ignored and the crc is computed. The rule for when it may be
 * written is in ./vector-file-load.ts.
 */

/** What identifies one version of a file's bytes on this machine. */
export interface FileIdentity {
  readonly ino: bigint;
  readonly size: bigint;
  readonly ctimeNs: bigint;
  readonly mtimeNs: bigint;
  /** The crc32 its header records (and its bytes had). */
  readonly crc: number;
}

const MEMO_VERSION = 1;

/** Where the memo of the snapshot at `vecPath` lives. */
export function verifiedMemoPath(vecPath: string): string {
  return `${vecPath}.ok`;
}

/** The identity the memo beside `vecPath` records; undefined when there is none readable. */
export function readVerifiedMemo(vecPath: string): FileIdentity | undefined {
  try {
    const v = JSON.parse(readFileSync(verifiedMemoPath(vecPath), 'utf8')) as Record<string, unknown>;
    if (v.version !== MEMO_VERSION || typeof v.crc !== 'number') return undefined;
    const big = (x: unknown): bigint => {
      if (typeof x !== 'string' || !/^[0-9]{1,30}$/.test(x)) throw new Error('not a count');
      return BigInt(x);
    };
    return { ino: big(v.ino), size: big(v.size), ctimeNs: big(v.ctimeNs), mtimeNs: big(v.mtimeNs), crc: v.crc };
  } catch {
    return undefined;
  }
}

/** Writes the memo (temporary file, then rename: a reader sees a whole memo or none). Throws on a write failure. */
export function recordVerified(vecPath: string, id: FileIdentity): void {
  const path = verifiedMemoPath(vecPath);
  const body = JSON.stringify({ version: MEMO_VERSION, ino: String(id.ino), size: String(id.size), ctimeNs: String(id.ctimeNs), mtimeNs: String(id.mtimeNs), crc: id.crc });
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, body, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
