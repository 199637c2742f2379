import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { EngineError } from '../core/errors.js';

/** Root-relative POSIX paths for a scoped pass; undefined (a full pass) if one is a directory. */
export function scopedPaths(root: string, paths: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (const p of paths) {
    if (typeof p !== 'string' || p === '') throw new EngineError('INVALID_ARGUMENT', { name: 'paths', reason: 'each path must be a non-empty string' });
    const abs = resolve(root, p);
    const rel = relative(root, abs);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new EngineError('PATH_OUTSIDE_ROOT', { path: p });
    try {
      if (statSync(abs).isDirectory()) return undefined;
    } catch {
      // deleted: a scoped pass removes it
    }
    out.push(rel.split(sep).join('/'));
  }
  return [...new Set(out)];
}
