/**
 * Failure retrieval, step 2: the items of a log placed on the repository's indexed files. A log
 * may come from another checkout, a container or a CI machine, so a path is matched by its longest
 * suffix that names exactly one indexed file; frames in installed packages and runtimes are dropped.
 * Pure: works on path strings only (nothing is read, so nothing outside the root can be).
 */
import { isLibraryPath } from '../core/library-paths.js';
import type { FailureItem } from './failure-item.js';
import { normPath } from './failure-rules.js';

export interface MappedFailures {
  /** Items whose file is indexed, with `file` relative to the root; log order. */
  readonly items: readonly FailureItem[];
  /** Items left out: `library` (site-packages, node_modules, runtimes), `unknown` (no indexed file), `ambiguous`. */
  readonly dropped: readonly { readonly file: string; readonly reason: 'library' | 'unknown' | 'ambiguous' }[];
}

/** An index of indexed paths by file name, for suffix matching. */
function byBaseName(files: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    const base = f.slice(f.lastIndexOf('/') + 1);
    const list = out.get(base);
    if (list) list.push(f);
    else out.set(base, [f]);
  }
  return out;
}

function relativeTo(root: string, file: string): string {
  const r = normPath(root).replace(/\/+$/, '');
  return r !== '' && file.startsWith(`${r}/`) ? file.slice(r.length + 1) : file;
}

type Placement = { path: string } | { reason: 'unknown' } | { reason: 'ambiguous'; hits: string[] };

/** The one indexed file a printed path names: exact, else the longest suffix with a single match. */
function place(file: string, exact: ReadonlySet<string>, bases: ReadonlyMap<string, string[]>): Placement {
  if (exact.has(file)) return { path: file };
  const parts = file.split('/').filter((p) => p !== '' && p !== '.' && p !== '..');
  const candidates = bases.get(parts.at(-1) ?? '') ?? [];
  if (candidates.length === 0) return { reason: 'unknown' };
  for (let k = parts.length; k >= 1; k--) {
    const suffix = parts.slice(-k).join('/');
    const hits = candidates.filter((c) => c === suffix || c.endsWith(`/${suffix}`));
    if (hits.length === 1) return { path: hits[0]! };
    if (hits.length > 1) return { reason: 'ambiguous', hits };
  }
  return { reason: 'unknown' };
}

/**
 * Places each item on an indexed file (`files`: root-relative paths): absolute paths inside `root`
 * become relative, others are matched by suffix; installed-package and runtime frames are dropped.
 */
export function mapFailures(items: readonly FailureItem[], root: string, files: readonly string[]): MappedFailures {
  const exact = new Set(files);
  const bases = byBaseName(files);
  const placed = items.map((item) => {
    const file = normPath(item.file);
    return isLibraryPath(file) ? ({ reason: 'library' } as const) : place(relativeTo(root, file), exact, bases);
  });
  // a name several files share is the one in a folder where the log placed another file
  const dirs = new Set(placed.flatMap((p) => ('path' in p ? [p.path.slice(0, p.path.lastIndexOf('/') + 1)] : [])));
  const kept: FailureItem[] = [];
  const dropped: { file: string; reason: 'library' | 'unknown' | 'ambiguous' }[] = [];
  items.forEach((item, i) => {
    const at = placed[i]!;
    const near = 'hits' in at ? at.hits.filter((h) => dirs.has(h.slice(0, h.lastIndexOf('/') + 1))) : [];
    if ('path' in at) kept.push({ ...item, file: at.path });
    else if (near.length === 1) kept.push({ ...item, file: near[0]! });
    else dropped.push({ file: item.file, reason: at.reason });
  });
  return { items: kept, dropped };
}
