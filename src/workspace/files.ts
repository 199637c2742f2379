import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { distance } from 'fastest-levenshtein';
import { EngineError } from '../core/errors.js';
import type { FileSlice } from '../core/file-slice.js';
import type { WalkOptions } from '../discover/walk.js';
import { decodeText } from '../discover/decode.js';
import { guardPath, servableText } from './path-guard.js';

export interface ReadFileOptions {
  /** First line, 1-based. Default 1. */
  readonly startLine?: number | undefined;
  /** Last line, inclusive; past the end reads to the end. Default: the end of the file. */
  readonly endLine?: number | undefined;
  /** Bytes of text to return at most; the slice stops at the last whole line that fits. Range 1–200,000; default 50,000. */
  readonly maxBytes?: number | undefined;
}

/** A slice of a file as it is on disk now (not as indexed). */
export type { FileSlice } from '../core/file-slice.js';

/** Checks the line range and byte budget of a read (INVALID_ARGUMENT), returning them with defaults applied. */
export function checkReadOptions(options: ReadFileOptions): { startLine: number; endLine: number | undefined; maxBytes: number } {
  const startLine = options.startLine ?? 1;
  const maxBytes = options.maxBytes ?? 50_000;
  if (!Number.isInteger(startLine) || startLine < 1) throw new EngineError('INVALID_ARGUMENT', { name: 'start_line', reason: 'must be an integer ≥ 1' });
  if (options.endLine !== undefined && (!Number.isInteger(options.endLine) || options.endLine < startLine)) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'end_line', reason: `must be an integer ≥ start_line (${startLine})` });
  }
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > 200_000) throw new EngineError('INVALID_ARGUMENT', { name: 'max_bytes', reason: 'must be an integer from 1 to 200000' });
  return { startLine, endLine: options.endLine, maxBytes };
}

/**
 * The slice of a decoded text a read returns: lines `startLine`–`endLine` (past the end: to the
 * end), stopping at the last whole line within `maxBytes` (at least one line). The local
 * read_file (from disk) and the team server's (from stored bodies) share it, so both bound alike.
 */
export function sliceText(text: string, options: ReadFileOptions): Pick<FileSlice, 'startLine' | 'endLine' | 'totalLines' | 'text' | 'truncated'> {
  const { startLine, endLine, maxBytes } = checkReadOptions(options);
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  if (startLine > total) throw new EngineError('INVALID_ARGUMENT', { name: 'start_line', reason: `the file has ${total} line${total === 1 ? '' : 's'}` });
  const last = Math.min(endLine ?? total, total);
  const out: string[] = [];
  let used = 0;
  let truncated = false;
  for (let i = startLine - 1; i < last; i++) {
    const size = Buffer.byteLength(lines[i]!, 'utf8') + 1;
    if (used + size > maxBytes && out.length > 0) {
      truncated = true;
      break;
    }
    out.push(lines[i]!);
    used += size;
  }
  return { startLine, endLine: startLine + out.length - 1, totalLines: total, text: out.join('\n'), truncated };
}

/** Reads a line range of a file the index would include, from disk. Refuses secrets and paths outside the root. */
export function readFileSlice(walk: WalkOptions, path: string, options: ReadFileOptions, knownPaths: () => readonly string[]): FileSlice {
  checkReadOptions(options);
  const guarded = withSuggestions(() => guardPath(walk, path), knownPaths);
  let bytes: Buffer;
  try {
    bytes = readFileSync(guarded.abs);
  } catch (err) {
    throw new EngineError('IO_ERROR', { path: guarded.rel, reason: (err as Error).message });
  }
  const decoded = decodeText(bytes);
  if (!decoded.ok) throw new EngineError('PATH_DENIED', { path: guarded.rel, reason: decoded.reason === 'binary' ? 'it is a binary file' : 'it is minified or generated (lines too long to read)' });
  // what the index stores: key material refused, token literals redacted within their line
  const slice = sliceText(servableText(guarded.rel, decoded.text), options);
  return { path: guarded.rel, language: guarded.candidate?.language ?? 'text', ...slice, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Runs a path lookup; a FILE_NOT_FOUND gains "did you mean" paths from the index. */
export function withSuggestions<T>(fn: () => T, knownPaths: () => readonly string[]): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof EngineError && err.code === 'FILE_NOT_FOUND' && typeof err.data.path === 'string') {
      throw new EngineError('FILE_NOT_FOUND', { ...err.data, suggestions: suggestPaths(err.data.path, knownPaths()) });
    }
    throw err;
  }
}

/**
 * Paths close to a wanted one, best first: same file name elsewhere, then paths that end with
 * what was asked (a missing prefix), then the smallest edit distances on the file name and path.
 */
export function suggestPaths(wanted: string, paths: readonly string[], max = 5): string[] {
  const w = wanted.replace(/^\.\//, '').toLowerCase();
  const base = w.slice(w.lastIndexOf('/') + 1);
  const scored: Array<{ path: string; score: number }> = [];
  for (const p of paths) {
    const lp = p.toLowerCase();
    const pb = lp.slice(lp.lastIndexOf('/') + 1);
    let score: number;
    if (lp.endsWith(`/${w}`)) score = 0;
    else if (pb === base) score = 1;
    else {
      const d = distance(pb, base);
      if (d > Math.max(2, Math.floor(base.length / 3))) continue;
      score = 2 + d + distance(lp, w) / 100;
    }
    scored.push({ path: p, score });
  }
  return scored.sort((a, b) => a.score - b.score || a.path.localeCompare(b.path)).slice(0, max).map((s) => s.path);
}
