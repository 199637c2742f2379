import type { EvidenceInput } from '../context/evidence-merge.js';
import { nameColumn, rowAt, type NavigationDeps } from './typed-navigation.js';
import type { SymbolRow } from '../store/structure-repo.js';

/** Lines each side of the cursor whose identifiers are resolved. */
const CURSOR_RADIUS = 1;
/** Identifiers resolved at most (each is one definition request). */
const MAX_NAMES = 6;
/** Lines of one definition put in the pack at most (the packer cuts further to its budget). */
const MAX_DEFINITION_LINES = 60;
const KEYWORDS = new Set(
  'const let var function return if else for while do switch case break continue new this self class def import from export default await async true false null undefined None True False in of is not and or try catch finally throw raise with as pass yield lambda typeof instanceof void interface type enum extends implements public private protected static readonly package func struct impl pub use mut fn let'.split(' '),
);

/** Code identifiers on the lines around the cursor, nearest line first, once each. */
function cursorNames(lines: readonly string[], line: number): Array<{ name: string; line: number }> {
  const out: Array<{ name: string; line: number }> = [];
  const order = [line, ...Array.from({ length: CURSOR_RADIUS }, (_, i) => [line - i - 1, line + i + 1]).flat()];
  for (const l of order) {
    const text = lines[l - 1];
    if (text === undefined) continue;
    for (const m of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]+/g)) {
      if (KEYWORDS.has(m[0]) || out.some((o) => o.name === m[0])) continue;
      out.push({ name: m[0], line: l });
    }
  }
  return out.slice(0, MAX_NAMES);
}

/**
 * Retrieval boost (seed 004 §8.2.4, issue 21): the definitions of the symbols at and around the
 * cursor, resolved by the file's language server, as evidence ranked before search results.
 * Empty when no server is enabled for the file or it does not answer (the pack is built as before).
 */
export async function definitionsNearCursor(deps: NavigationDeps, current: { readonly path: string; readonly line?: number | undefined }): Promise<EvidenceInput[]> {
  if (!deps.lsp.pool.enabled || current.line === undefined) return [];
  const slice = await deps.read(current.path).catch(() => undefined);
  if (!slice || !deps.lsp.available(slice.language)) return [];
  const lines = slice.text.split('\n');
  const seen = new Set<number>();
  const rows: SymbolRow[] = [];
  for (const { name, line } of cursorNames(lines, current.line)) {
    const column = nameColumn(lines[line - 1] ?? '', name);
    if (column === undefined) continue;
    const resolved = await deps.lsp.resolve('definition', slice, line, column);
    if ('fallback' in resolved) break; // a slow or failed server: no more requests
    for (const pos of resolved.positions) {
      const row = await deps.snapshot((store) => rowAt(store.structure.inFile(pos.path), name, pos));
      // a definition inside the cursor's own window adds nothing the window does not show
      if (!row || seen.has(row.id) || (row.path === slice.path && Math.abs(row.startLine - current.line) <= CURSOR_RADIUS)) continue;
      seen.add(row.id);
      rows.push(row);
    }
  }
  const out: EvidenceInput[] = [];
  for (const row of rows) {
    const endLine = Math.min(row.endLine, row.startLine + MAX_DEFINITION_LINES - 1);
    const text = await deps.readStored(row.path, row.startLine, endLine);
    if (text !== '') out.push({ path: row.path, startLine: row.startLine, endLine, text, symbol: row.container ? `${row.container}.${row.name}` : row.name, kind: 'chunk' });
  }
  return out;
}
