import { realpathSync } from 'node:fs';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import { EngineError } from '../core/errors.js';
import type { FileCandidate, SkipReason } from '../core/file.js';
import { inspectContent } from '../discover/secret-content.js';
import { checkNewPath, checkPaths, isInside, type WalkOptions } from '../discover/walk.js';

/** A path an agent may read or write: inside the root after resolving links, and one the index would take. */
export interface GuardedPath {
  /** Root-relative, `/`-separated. */
  readonly rel: string;
  /** Absolute path of the file itself (a link's target when the path is a link inside the root). */
  readonly abs: string;
  /** False for a file that does not exist yet (only `allowMissing` lets one through). */
  readonly exists: boolean;
  /** The walk's view of the file, when it exists. */
  readonly candidate?: FileCandidate | undefined;
}

/** Why the walk leaves a file out, in words an agent can act on. */
const DENIED: Partial<Record<SkipReason, string>> = {
  secret: 'it is a secrets file (keys, credentials, .env)',
  denylist: 'it is build output, a dependency, a binary or a lock file (built-in denylist)',
  ignored: 'it is excluded by .gitignore, .scryignore or config `ignore`',
  too_large: 'it is larger than the configured maxFileBytes',
  symlink_outside_root: 'it is a link that resolves outside the project root',
  symlink_duplicate: 'it is a link to a directory (use the real path)',
  broken_symlink: 'it is a broken link',
  special_file: 'it is not a regular file',
  unreadable: 'it cannot be read',
};

/**
 * Normalises what a caller typed into a root-relative POSIX path, refusing anything that leaves the
 * root lexically (`..`, absolute paths elsewhere, NUL bytes). Links are checked by `guardPath`.
 */
export function normaliseRel(root: string, input: string): string {
  if (typeof input !== 'string' || input.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'must be a non-empty path' });
  if (input.includes('\0')) throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'contains a NUL byte' });
  let rel: string;
  if (isAbsolute(input)) {
    rel = relative(root, input).split(sep).join('/');
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new EngineError('PATH_OUTSIDE_ROOT', { path: input });
  } else {
    rel = posix.normalize(input.split(sep).join('/').replace(/^\.\/+/, ''));
  }
  rel = rel.replace(/\/+$/, '');
  if (rel === '.' || rel === '') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'names the project root, not a file' });
  if (rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel)) throw new EngineError('PATH_OUTSIDE_ROOT', { path: input });
  return rel;
}

/**
 * Resolves `input` to a file inside `walk.root` that scry would index, or throws:
 * PATH_OUTSIDE_ROOT (lexically or through a link), PATH_DENIED (secret, denylisted, ignored...),
 * FILE_NOT_FOUND (missing, unless `allowMissing`; the caller adds suggestions), INVALID_ARGUMENT (a directory).
 * The same decision the walker makes (`checkPaths`), so the tools see exactly what the index sees.
 */
export function guardPath(walk: WalkOptions, input: string, options: { allowMissing?: boolean } = {}): GuardedPath {
  const rel = normaliseRel(walk.root, input);
  const check = checkPaths(walk, [rel])[0]!;
  if (check.kind === 'file') {
    const abs = check.candidate.absPath;
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      throw new EngineError('FILE_NOT_FOUND', { path: rel });
    }
    if (!isInside(walk.root, real)) throw new EngineError('PATH_OUTSIDE_ROOT', { path: input });
    return { rel, abs: real, exists: true, candidate: check.candidate };
  }
  if (check.kind === 'directory') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: `${rel} is a directory; list_files lists its files` });
  if (check.kind === 'skip') {
    if (check.reason === 'symlink_outside_root') throw new EngineError('PATH_OUTSIDE_ROOT', { path: input });
    throw new EngineError('PATH_DENIED', { path: rel, reason: DENIED[check.reason] ?? check.reason, skip: check.reason });
  }
  // missing: a new file must be one the walk would take once written
  if (!options.allowMissing) throw new EngineError('FILE_NOT_FOUND', { path: rel });
  const verdict = checkNewPath(walk, rel);
  if (verdict === 'symlink_outside_root') throw new EngineError('PATH_OUTSIDE_ROOT', { path: input });
  if (verdict) throw new EngineError('PATH_DENIED', { path: rel, reason: DENIED[verdict] ?? verdict, skip: verdict });
  return { rel, abs: join(walk.root, ...rel.split('/')), exists: false };
}

/** The content-level secret check every read and write of a file's text passes (key blocks, registry tokens). */
export function refuseSecretContent(rel: string, text: string): void {
  servableText(rel, text);
}

/**
 * What of a file's text may be served: refuses a file with key material or a registry token
 * (PATH_DENIED), and returns the text with token literals redacted (`«redacted:<rule>»`), as the
 * index stores it.
 */
export function servableText(rel: string, text: string): string {
  const verdict = inspectContent(text, [rel]);
  if (verdict.secret) throw new EngineError('PATH_DENIED', { path: rel, reason: `its content looks like a secret (${verdict.rule})`, skip: 'secret' });
  return verdict.text;
}
