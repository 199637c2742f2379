import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A fresh temp directory, removed by the returned cleanup. */
export function tempDir(prefix = 'scry-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a tree of files: keys are relative paths, values contents. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** An environment with no SCRY_* variables and the cache dir inside `dir`. */
export function isolatedEnv(dir: string): Record<string, string> {
  return { SCRY_CACHE_DIR: join(dir, 'cache') };
}
