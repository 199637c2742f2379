import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileCandidate } from '../../../src/core/file.js';
import { walk, type Skipped, type WalkOptions } from '../../../src/discover/walk.js';

/** A fresh real directory under the OS temp dir (real path, so symlink checks compare equal). */
export function makeTempDir(prefix = 'scry-discover-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Writes `files` (POSIX relative path → content) under `root`, creating directories. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, ...rel.split('/'));
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

export interface WalkResult {
  readonly files: FileCandidate[];
  readonly skipped: Skipped[];
  /** Paths of files to index, sorted. */
  readonly paths: string[];
  /** Skip reason by path (directories end with '/'). */
  readonly reasons: Map<string, string>;
}

export function runWalk(root: string, overrides: Partial<Omit<WalkOptions, 'root'>> = {}): WalkResult {
  const files: FileCandidate[] = [];
  const skipped: Skipped[] = [];
  const options: WalkOptions = {
    root,
    maxFileBytes: overrides.maxFileBytes ?? 1_000_000,
    ignore: overrides.ignore ?? [],
    denylist: overrides.denylist ?? { add: [], remove: [] },
  };
  walk(options, { file: (c) => files.push(c), skip: (s) => skipped.push(s) });
  return {
    files,
    skipped,
    paths: files.map((f) => f.path).sort(),
    reasons: new Map(skipped.map((s) => [s.path, s.reason])),
  };
}
