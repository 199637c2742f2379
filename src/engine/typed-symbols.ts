import { distance } from 'fastest-levenshtein';
import type { SymbolKind } from '../core/symbol.js';
import type { WorkspaceSymbolHit } from '../lsp/lsp-queries.js';
import { compareHits, containerMatches, splitQualified, type SymbolHit, type SymbolMatch } from '../search/symbol-search.js';
import type { IndexStore } from '../store/index-store.js';
import type { SymbolRow } from '../store/structure-repo.js';
import type { SymbolSearchResult } from './engine-api.js';
import { rowAt, type NavigationDeps } from './typed-navigation.js';

/** Server symbols mapped to indexed rows at most per family (the rest are beyond any limit asked for). */
const MAX_SERVER_SYMBOLS = 1000;

function matchOf(name: string, wanted: string): { match: SymbolMatch; distance: number } {
  const a = name.toLowerCase();
  const w = wanted.toLowerCase();
  const d = name === wanted ? 0 : distance(a, w);
  return { match: a === w ? 'exact' : a.startsWith(w) ? 'prefix' : 'fuzzy', distance: d };
}

/** One document per language family with a server: a name hit's file, else the first indexed file of its languages. */
async function documentsByFamily(deps: NavigationDeps, named: readonly SymbolHit[]): Promise<Map<string, string>> {
  const files = await deps.snapshot((store) => store.files.firstOfEachLanguage());
  const candidates = [...named.map((h) => ({ path: h.path, language: h.language })), ...files];
  const out = new Map<string, string>();
  for (const c of candidates) {
    const family = deps.lsp.pool.specFor(c.language)?.name;
    if (family !== undefined && !out.has(family) && deps.lsp.available(c.language)) out.set(family, c.path);
  }
  return out;
}

/** A server's symbols as indexed definitions (those the index has no row for are dropped: ids must resolve). */
function serverRows(store: IndexStore, symbols: readonly WorkspaceSymbolHit[], query: string, kinds: readonly SymbolKind[] | undefined): SymbolHit[] {
  const { name, container } = splitQualified(query);
  const ordered = [...symbols].sort((a, b) => Number(matchOf(a.name, name).match !== 'exact') - Number(matchOf(b.name, name).match !== 'exact')).slice(0, MAX_SERVER_SYMBOLS);
  const byPath = new Map<string, SymbolRow[]>();
  const out: SymbolHit[] = [];
  for (const s of ordered) {
    if (!byPath.has(s.at.path)) byPath.set(s.at.path, store.structure.inFile(s.at.path));
    const row = rowAt(byPath.get(s.at.path) ?? [], s.name, s.at);
    if (!row || row.name !== s.name) continue;
    if (kinds && !kinds.includes(row.kind)) continue;
    if (container && !containerMatches(row.container, container)) continue;
    out.push({ ...row, ...matchOf(row.name, name) });
  }
  return out;
}

/**
 * Definitions by name, and, for each language family with a server, by its workspace/symbol
 * (`resolution: "lsp"`): the union, ranked like the name lookup. A server adds what the name
 * tiers miss (substring and camel-case matches: `Database` → `openDatabase`); the index keeps
 * what a server does not see (files outside its project, e.g. outside tsconfig.json's `include`).
 */
export async function findSymbols(
  deps: NavigationDeps,
  query: string,
  options: { readonly kinds?: readonly SymbolKind[] | undefined; readonly limit: number },
  named: readonly SymbolHit[],
): Promise<SymbolSearchResult> {
  if (!deps.lsp.pool.enabled) return { symbols: [...named], resolution: 'name' };
  const docs = await documentsByFamily(deps, named);
  if (docs.size === 0) return { symbols: [...named], resolution: 'name', fallback: 'no language server answers for the languages of this index (see scry status)' };
  const servers: string[] = [];
  const reasons: string[] = [];
  const found = new Map<number, SymbolHit>(named.map((h) => [h.id, h]));
  const { name } = splitQualified(query.trim());
  for (const path of docs.values()) {
    const slice = await deps.read(path).catch(() => undefined);
    const answer = slice ? await deps.lsp.workspaceSymbols(slice, name) : { fallback: `${path} cannot be read` };
    if ('fallback' in answer) {
      reasons.push(answer.fallback);
      continue;
    }
    servers.push(answer.server);
    const rows = await deps.snapshot((store) => serverRows(store, answer.symbols, query.trim(), options.kinds));
    for (const r of rows) if (!found.has(r.id)) found.set(r.id, r);
  }
  const symbols = [...found.values()].sort(compareHits(name)).slice(0, options.limit);
  const fallback = reasons.length > 0 ? reasons.join('; ') : undefined;
  return servers.length > 0
    ? { symbols, resolution: 'lsp', servers, ...(fallback ? { fallback } : {}) }
    : { symbols: [...named], resolution: 'name', ...(fallback ? { fallback } : {}) };
}
