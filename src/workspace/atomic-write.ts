import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EngineError } from '../core/errors.js';

/** One file of an all-or-nothing write. */
export interface FileWrite {
  /** Root-relative path, for messages. */
  readonly rel: string;
  /** Where the bytes go (a link's target when the path is a link inside the root). */
  readonly abs: string;
  /** The bytes the file must still have when the write starts; null: it must not exist. */
  readonly expected: Uint8Array | null;
  /** The new bytes; null deletes the file. */
  readonly content: Uint8Array | null;
  /** Permission bits of the written file; a modified file keeps its own. Default: 0o666 less the umask. */
  readonly mode?: number | undefined;
}

/** The file-system calls the writer makes, injectable so tests can fail one of them. */
export interface WriteFs {
  readFile(path: string): Uint8Array;
  exists(path: string): boolean;
  /** Writes a new file (fails if it exists) and flushes it to disk. */
  writeNew(path: string, data: Uint8Array, mode: number | undefined): void;
  rename(from: string, to: string): void;
  unlink(path: string): void;
  /** A second name for an existing file (a hard link, or a copy where links are not supported). */
  backup(path: string, to: string): void;
  mkdir(path: string): void;
  rmdir(path: string): void;
}

export const nodeWriteFs: WriteFs = {
  readFile: (p) => fs.readFileSync(p),
  exists: (p) => {
    try {
      fs.lstatSync(p);
      return true;
    } catch {
      return false;
    }
  },
  writeNew: (p, data, mode) => {
    const fd = fs.openSync(p, 'wx', mode ?? 0o666);
    try {
      fs.writeFileSync(fd, data);
      if (mode !== undefined) fs.fchmodSync(fd, mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  rename: (a, b) => fs.renameSync(a, b),
  unlink: (p) => fs.unlinkSync(p),
  backup: (p, to) => {
    try {
      fs.linkSync(p, to);
    } catch {
      fs.copyFileSync(p, to, fs.constants.COPYFILE_EXCL);
    }
  },
  mkdir: (p) => fs.mkdirSync(p),
  rmdir: (p) => fs.rmdirSync(p),
};

interface Staged {
  readonly write: FileWrite;
  /** The new content, written next to the target, renamed over it on commit. */
  temp?: string;
  /** The original file under a second name, renamed back on rollback. */
  backup?: string;
}

/**
 * Writes every file or none. First checks that each file still has the bytes the change was
 * computed from; then writes each new content to a temp file in the target's directory and keeps
 * each original under a backup name (a hard link); then renames the temp files over the targets
 * (and unlinks deleted files) one by one. If a step of that last phase fails, the files already
 * changed are restored from their backups, in reverse order, and IO_ERROR says so. Synchronous
 * on purpose: nothing else in this process runs between the check and the renames.
 */
export function writeAllOrNothing(writes: readonly FileWrite[], io: WriteFs = nodeWriteFs): void {
  const staged: Staged[] = [];
  const createdDirs: string[] = [];
  try {
    for (const w of writes) checkUnchanged(w, io);
    for (const w of writes) {
      const s: Staged = { write: w };
      staged.push(s);
      stage(s, io, createdDirs);
    }
  } catch (err) {
    cleanup(staged, createdDirs, io);
    throw asEngineError(err, staged.at(-1)?.write.rel ?? writes[0]?.rel ?? '?');
  }
  const done: Staged[] = [];
  for (const s of staged) {
    try {
      commit(s, io);
      done.push(s);
    } catch (err) {
      const failed = rollback(done, io);
      cleanup(staged, createdDirs, io);
      const restored = failed.length === 0 ? `nothing was changed (${done.length} file${done.length === 1 ? '' : 's'} already changed were restored)` : `restoring failed for ${failed.join(', ')}`;
      throw new EngineError('IO_ERROR', { path: s.write.rel, reason: `${(err as Error).message}; ${restored}`, rolledBack: done.length - failed.length, rollbackFailed: failed }, { cause: err });
    }
  }
  for (const s of staged) if (s.backup) tryIo(() => io.unlink(s.backup!));
}

function checkUnchanged(w: FileWrite, io: WriteFs): void {
  if (w.expected === null) {
    if (io.exists(w.abs)) throw new EngineError('PATCH_CONFLICT', { path: w.rel, reason: 'it was created since the change was computed; compute the change again' });
    return;
  }
  let now: Uint8Array;
  try {
    now = io.readFile(w.abs);
  } catch {
    throw new EngineError('PATCH_CONFLICT', { path: w.rel, reason: 'it was deleted since the change was computed; compute the change again' });
  }
  if (!Buffer.from(now.buffer, now.byteOffset, now.byteLength).equals(w.expected)) {
    throw new EngineError('PATCH_CONFLICT', { path: w.rel, reason: 'it changed on disk since the change was computed; read it again and recompute the change' });
  }
}

function sibling(abs: string, kind: 'tmp' | 'bak'): string {
  return join(dirname(abs), `.${basename(abs)}.scry-${randomBytes(6).toString('hex')}.${kind}`);
}

/** Fills `s` as it goes, so that a failure half-way leaves cleanup a record of what to remove. */
function stage(s: Staged, io: WriteFs, createdDirs: string[]): void {
  const w = s.write;
  if (w.content !== null) {
    ensureDir(dirname(w.abs), io, createdDirs);
    const temp = sibling(w.abs, 'tmp');
    io.writeNew(temp, w.content, w.mode);
    s.temp = temp;
  }
  if (w.expected !== null) {
    const backup = sibling(w.abs, 'bak');
    io.backup(w.abs, backup);
    s.backup = backup;
  }
}

/** Creates missing directories top-down, recording them so a failed write can remove them. */
function ensureDir(dir: string, io: WriteFs, created: string[]): void {
  if (io.exists(dir)) return;
  ensureDir(dirname(dir), io, created);
  io.mkdir(dir);
  created.push(dir);
}

function commit(s: Staged, io: WriteFs): void {
  if (s.temp) {
    io.rename(s.temp, s.write.abs);
    delete s.temp;
  } else {
    io.unlink(s.write.abs);
  }
}

/** Undoes committed files in reverse order; returns the paths that could not be restored. */
function rollback(done: readonly Staged[], io: WriteFs): string[] {
  const failed: string[] = [];
  for (const s of [...done].reverse()) {
    try {
      if (s.backup) {
        io.rename(s.backup, s.write.abs);
        delete s.backup;
      } else {
        io.unlink(s.write.abs);
      }
    } catch {
      failed.push(s.write.rel);
    }
  }
  return failed;
}

/** Removes what staging left behind: temp files, unused backups, directories it created. */
function cleanup(staged: readonly Staged[], createdDirs: readonly string[], io: WriteFs): void {
  for (const s of staged) {
    if (s.temp) tryIo(() => io.unlink(s.temp!));
    if (s.backup) tryIo(() => io.unlink(s.backup!));
  }
  for (const dir of [...createdDirs].reverse()) tryIo(() => io.rmdir(dir));
}

function tryIo(fn: () => void): void {
  try {
    fn();
  } catch {
    // best effort: a leftover temp file is harmless and named after its target
  }
}

function asEngineError(err: unknown, rel: string): EngineError {
  if (err instanceof EngineError) return err;
  return new EngineError('IO_ERROR', { path: rel, reason: `${(err as Error)?.message ?? String(err)}; nothing was changed` }, { cause: err });
}
