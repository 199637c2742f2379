import { EngineError } from '../core/errors.js';
import type { SourcePosition } from '../lsp/lsp-queries.js';
import { findReferences, type Reference, type ReferenceGroup, type ReferencesResult } from '../search/references.js';
import type { UsesCache } from '../search/uses-cache.js';
import { formatSymbolId, parseSymbolId, resolveSymbolId } from '../search/symbol-id.js';
import type { IndexStore } from '../store/index-store.js';
import type { SymbolRow } from '../store/structure-repo.js';
import type { FileSlice } from '../workspace/files.js';
import type { SymbolDefinition, SymbolLookupOptions } from './engine-api.js';
import type { LspLayer } from './lsp-layer.js';

/** What definitions and references by type need from the engine. */
export interface NavigationDeps {
  readonly lsp: LspLayer;
  /** A whole file as it is on disk, through read_file's guard (inside the root, not a secret). */
  read(path: string): Promise<FileSlice>;
  snapshot<T>(fn: (store: IndexStore) => T | Promise<T>): Promise<T>;
  /** Lines of a file as indexed. */
  readStored(path: string, startLine: number, endLine: number): Promise<string>;
  /** Definitions with a name close to `name` (the suggestions of SYMBOL_NOT_FOUND). */
  near(name: string): Promise<SymbolRow[]>;
  /** The engine's identifier kinds kept across calls (search/uses-cache.ts). */
  readonly uses?: UsesCache | undefined;
}

/** CLOSED, for a closed engine's language-server layer. */
export function closedEngine(): never {
  throw new EngineError('CLOSED');
}

/** Lines after a definition's first line searched for its name (decorators, `export default`, comments). */
const NAME_SEARCH_LINES = 5;

/** The 1-based column of `name` as a whole identifier in `text`, or undefined. */
export function nameColumn(text: string, name: string): number | undefined {
  const escaped = name.replace(/[$]/g, '\\$');
  const m = new RegExp(`(?<![\\p{L}\\p{N}_$])${escaped}(?![\\p{L}\\p{N}_$])`, 'u').exec(text);
  return m ? m.index + 1 : undefined;
}

/** Where a definition's name is: its line and column, searched from its first line. */
export function namePosition(lines: readonly string[], def: SymbolRow): { line: number; column: number } | undefined {
  for (let l = def.startLine; l < def.startLine + NAME_SEARCH_LINES && l <= lines.length; l++) {
    const column = nameColumn(lines[l - 1] ?? '', def.name);
    if (column !== undefined) return { line: l, column };
  }
  return undefined;
}

function referenceKind(lineText: string, column: number, name: string, isDefinition: boolean): Reference['kind'] {
  if (isDefinition) return 'definition';
  if (/^\s*(import|from)\b/.test(lineText)) return 'import';
  return /^\s*\(/.test(lineText.slice(column - 1 + name.length)) ? 'call' : 'reference';
}

/** Server positions → reference groups with each line's text (a file that cannot be read keeps empty lines). */
async function groups(deps: NavigationDeps, positions: readonly SourcePosition[], def: SymbolRow, at: { line: number; column: number }): Promise<ReferenceGroup[]> {
  const byPath = new Map<string, SourcePosition[]>();
  for (const p of positions) byPath.set(p.path, [...(byPath.get(p.path) ?? []), p]);
  const out: ReferenceGroup[] = [];
  for (const [path, list] of byPath) {
    const slice = await deps.read(path).catch(() => undefined);
    const lines = slice?.text.split('\n') ?? [];
    const references = list.map((p) => {
      const text = lines[p.line - 1] ?? '';
      const isDef = path === def.path && p.line === at.line;
      return { line: p.line, column: p.column, kind: referenceKind(text, p.column, def.name, isDef), text: text.trim().slice(0, 200) };
    });
    out.push({ path, language: slice?.language ?? def.language, references });
  }
  // the definition's file first, then by path (as the name lookup orders them)
  return out.sort((a, b) => Number(b.path === def.path) - Number(a.path === def.path) || (a.path < b.path ? -1 : 1));
}

/**
 * References of a symbol: by type when its definition is known (an id with a path, or a name
 * with one definition) and a server answers for its language; else by name, saying why in `fallback`.
 */
export async function referencesOf(deps: NavigationDeps, idOrName: string, limit: number): Promise<ReferencesResult> {
  const parsed = parseSymbolId(idOrName);
  const byName = async (fallback?: string): Promise<ReferencesResult> => ({
    ...(await deps.snapshot((store) => findReferences(store, parsed.name, limit, { cache: deps.uses }))),
    resolution: 'name',
    ...(fallback ? { fallback } : {}),
  });
  if (!deps.lsp.pool.enabled) return byName();
  const rows = await deps.snapshot((store) => resolveSymbolId(store, idOrName));
  const def = parsed.path !== undefined || rows.length === 1 ? rows[0] : undefined;
  if (!def) return byName(rows.length > 1 ? `${rows.length} definitions are named ${parsed.name}: pass an id (path#name@line) to resolve by type` : undefined);
  if (!deps.lsp.available(def.language)) return byName(`no language server answers for ${def.language} (see scry status)`);
  const slice = await deps.read(def.path);
  const at = namePosition(slice.text.split('\n'), def);
  if (!at) return byName(`${def.name} was not found on lines ${def.startLine}-${def.startLine + NAME_SEARCH_LINES - 1} of ${def.path} as it is on disk`);
  const resolved = await deps.lsp.resolve('references', slice, at.line, at.column);
  if ('fallback' in resolved) return byName(resolved.fallback);
  // the declaration is asked for too: an answer without it means the server did not see a symbol there
  // (JavaScript's `obj.name = function` members), and names do better than nothing
  if (!resolved.positions.some((p) => p.path === def.path && p.line === at.line)) return byName(`the ${resolved.server} server does not see a symbol at ${def.path}:${at.line}`);
  const all = await groups(deps, resolved.positions, def, at);
  let left = limit;
  const files = all.map((g) => ({ ...g, references: g.references.slice(0, Math.max(left, 0)) })).filter((g) => {
    left -= g.references.length;
    return g.references.length > 0;
  });
  const total = files.reduce((n, g) => n + g.references.length, 0);
  return { name: def.name, files, total, truncated: resolved.positions.length > total, parsed: 0, resolution: 'lsp', server: resolved.server };
}

/** The indexed definition a server position falls in: the innermost row of that name spanning the line. */
export function rowAt(rows: readonly SymbolRow[], name: string, pos: SourcePosition): SymbolRow | undefined {
  const spans = rows.filter((r) => r.startLine <= pos.line && pos.line <= r.endLine);
  const named = spans.filter((r) => r.name === name);
  const pick = (named.length > 0 ? named : spans.filter((r) => r.startLine === pos.line)).sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
  return pick[0];
}

/** The definition a use resolves to, by the server: an indexed row, or why not. */
async function definitionAt(deps: NavigationDeps, name: string, at: NonNullable<SymbolLookupOptions['at']>): Promise<{ row: SymbolRow; server: string } | { fallback: string }> {
  const slice = await deps.read(at.path);
  const column = at.column ?? nameColumn(slice.text.split('\n')[at.line - 1] ?? '', name);
  if (column === undefined) return { fallback: `${name} does not occur on ${at.path}:${at.line}` };
  const resolved = await deps.lsp.resolve('definition', slice, at.line, column);
  if ('fallback' in resolved) return resolved;
  for (const pos of resolved.positions) {
    const row = await deps.snapshot((store) => rowAt(store.structure.inFile(pos.path), name, pos));
    if (row) return { row, server: resolved.server };
  }
  const first = resolved.positions[0];
  return { fallback: first ? `the server's definition (${first.path}:${first.line}) is not an indexed definition` : 'the server found no definition inside the root' };
}

/**
 * A definition by id or name; with `at` (a use of it) and a server for that file's language, the
 * one that use resolves to (`resolution: "lsp"`), else by name as before.
 */
export async function symbolDefinition(deps: NavigationDeps, id: string, options: SymbolLookupOptions): Promise<SymbolDefinition> {
  const maxLines = options.maxLines ?? 200;
  // the server is asked outside any read snapshot: snapshots on one connection take turns, and a slow server must not hold others up
  const typed = options.at && deps.lsp.pool.enabled ? await definitionAt(deps, parseSymbolId(id).name, options.at) : undefined;
  const fallback = options.at && !deps.lsp.pool.enabled ? 'lsp.enabled is false' : typed && 'fallback' in typed ? typed.fallback : undefined;
  const found = await deps.snapshot(async (store): Promise<SymbolDefinition> => {
    const rows = resolveSymbolId(store, id);
    const best = typed && 'row' in typed ? typed.row : rows[0];
    if (!best) {
      const near = await deps.near(parseSymbolId(id).name).catch(() => []);
      throw new EngineError('SYMBOL_NOT_FOUND', { id, suggestions: near.map(formatSymbolId) });
    }
    const lines = best.endLine - best.startLine + 1;
    const shown = Math.min(lines, maxLines);
    const text = await deps.readStored(best.path, best.startLine, best.startLine + shown - 1);
    const alternatives = rows.filter((r) => r.id !== best.id).slice(0, 20).map(formatSymbolId);
    const resolution = typed && 'row' in typed ? 'lsp' : 'name';
    return { id: formatSymbolId(best), symbol: best, text, truncated: shown < lines, alternatives, resolution, ...(fallback ? { fallback } : {}) };
  });
  if (!options.implementations) return found;
  const impl = await implementationsOf(deps, found.symbol);
  return 'ids' in impl ? { ...found, implementations: impl.ids } : { ...found, implementations: [], implementationsFallback: impl.fallback };
}

/** Implementations of a definition by its server (textDocument/implementation), as indexed ids, or why there are none. */
export async function implementationsOf(deps: NavigationDeps, def: SymbolRow): Promise<{ ids: string[]; server: string } | { fallback: string }> {
  if (!deps.lsp.pool.enabled) return { fallback: 'lsp.enabled is false' };
  if (!deps.lsp.available(def.language)) return { fallback: `no language server answers for ${def.language} (see scry status)` };
  const slice = await deps.read(def.path);
  const at = namePosition(slice.text.split('\n'), def);
  if (!at) return { fallback: `${def.name} was not found on the first lines of ${def.path} as it is on disk` };
  const resolved = await deps.lsp.resolve('implementation', slice, at.line, at.column);
  if ('fallback' in resolved) return resolved;
  const ids = await deps.snapshot((store) => {
    const out = new Set<string>();
    for (const pos of resolved.positions) {
      const row = rowAt(store.structure.inFile(pos.path), def.name, pos);
      if (row && row.id !== def.id) out.add(formatSymbolId(row));
    }
    return [...out];
  });
  return { ids, server: resolved.server };
}
