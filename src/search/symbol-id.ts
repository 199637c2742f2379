import { EngineError } from '../core/errors.js';
import type { IndexStore } from '../store/index-store.js';
import type { SymbolRow } from '../store/structure-repo.js';

/**
 * Symbol ids agents pass back: `path#Container.name@line`, e.g. `src/store/database.ts#IndexStore.open@37`.
 * Readable, and stable while the file is unchanged; after an edit the same name in the same file
 * still resolves (the nearest definition to the old line wins). Database row ids are not used: a
 * re-index renumbers them.
 */
export function formatSymbolId(s: Pick<SymbolRow, 'path' | 'container' | 'name' | 'startLine'>): string {
  return `${s.path}#${s.container ? `${s.container}.` : ''}${s.name}@${s.startLine}`;
}

export interface ParsedSymbolId {
  readonly path?: string;
  readonly name: string;
  readonly container?: string;
  readonly line?: number;
}

/** Parses an id; text without `#` is a plain (optionally qualified) name. */
export function parseSymbolId(id: string): ParsedSymbolId {
  if (typeof id !== 'string' || id.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'symbol_id', reason: 'must be a non-empty string' });
  if (id.length > 1000) throw new EngineError('INVALID_ARGUMENT', { name: 'symbol_id', reason: 'is longer than 1000 characters' });
  const s = id.trim();
  const hash = s.lastIndexOf('#');
  const path = hash > 0 ? s.slice(0, hash) : undefined;
  let rest = hash > 0 ? s.slice(hash + 1) : s;
  let line: number | undefined;
  const at = /@(\d+)$/.exec(rest);
  if (at) {
    line = Number(at[1]);
    rest = rest.slice(0, at.index);
  }
  const dot = rest.lastIndexOf('.');
  const name = dot > 0 ? rest.slice(dot + 1) : rest;
  const container = dot > 0 ? rest.slice(0, dot) : undefined;
  if (name === '') throw new EngineError('INVALID_ARGUMENT', { name: 'symbol_id', reason: 'has no name (expected `path#Name@line` or a name)' });
  return { ...(path ? { path } : {}), name, ...(container ? { container } : {}), ...(line !== undefined ? { line } : {}) };
}

/**
 * The definitions an id names, best first. With a path: definitions of that name (and container)
 * in that file, nearest to the line first. Without: every definition with that exact name.
 */
export function resolveSymbolId(store: IndexStore, id: string): SymbolRow[] {
  const p = parseSymbolId(id);
  const sameContainer = (r: SymbolRow): boolean => p.container === undefined || r.container === p.container || (r.container ?? '').endsWith(`.${p.container}`);
  return store.read(() => {
    if (p.path !== undefined) {
      const rows = store.structure.inFile(p.path).filter((r) => r.name === p.name && sameContainer(r));
      const line = p.line ?? 0;
      return rows.sort((a, b) => Math.abs(a.startLine - line) - Math.abs(b.startLine - line));
    }
    return store.structure.byName(p.name, undefined, 200).filter((r) => r.name === p.name && sameContainer(r));
  });
}
