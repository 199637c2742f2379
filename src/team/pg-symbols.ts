/**
 * search_symbols over the team index, from what a push stores per chunk: the definition a chunk
 * heads (`team_chunks.symbol`, `container`, `signature`, and its kind when it is a definition).
 * Matching is the local name fallback's (src/search/symbol-search.ts): exact name (any case), then
 * names starting with the query, then names within `maxTypos` edits, ordered by `compareHits`.
 * A definition that heads no chunk of its own (merged into a neighbour's chunk, or a method inside
 * a class kept whole) is not found here: the team index keeps chunks, not the symbol table.
 */
import { distance } from 'fastest-levenshtein';
import { SYMBOL_KINDS, type SymbolKind } from '../core/symbol.js';
import { formatSymbolId } from '../search/symbol-id.js';
import { checkSymbolQuery, compareHits, containerMatches, maxTypos, splitQualified, type SymbolMatch } from '../search/symbol-search.js';
import type { PgDb, Sql } from './pg-db.js';
import { heads } from './pg-search.js';
import type { TeamSymbolHit, TeamSymbolOptions } from './team-store.js';

/** The names of one revision that match `name`, each with how: exact, prefix (shortest first) or fuzzy (closest first), at most `fetch` per tier. */
function matchNames(names: readonly string[], name: string, fetch: number): Map<string, { match: SymbolMatch; distance: number }> {
  const target = name.toLowerCase();
  const budget = maxTypos(name.length);
  const exact: string[] = [];
  const prefix: string[] = [];
  const fuzzy: Array<{ n: string; d: number }> = [];
  for (const n of names) {
    const lower = n.toLowerCase();
    if (lower === target) exact.push(n);
    else if (lower.startsWith(target)) prefix.push(n);
    else if (budget > 0 && Math.abs(n.length - target.length) <= budget) {
      const d = distance(lower, target);
      if (d <= budget) fuzzy.push({ n, d });
    }
  }
  prefix.sort((a, b) => a.length - b.length || a.localeCompare(b));
  fuzzy.sort((a, b) => a.d - b.d || a.n.localeCompare(b.n));
  const out = new Map<string, { match: SymbolMatch; distance: number }>();
  for (const n of exact.slice(0, fetch)) out.set(n, { match: 'exact', distance: n === name ? 0 : distance(n.toLowerCase(), target) });
  for (const n of prefix.slice(0, fetch)) out.set(n, { match: 'prefix', distance: distance(n.toLowerCase(), target) });
  for (const f of fuzzy.slice(0, fetch)) out.set(f.n, { match: 'fuzzy', distance: f.d });
  return out;
}

async function revisionHits(sql: Sql, rev: { name: string; revision: number }, name: string, container: string | undefined, kinds: readonly SymbolKind[], fetch: number): Promise<TeamSymbolHit[]> {
  const names = (await sql('SELECT DISTINCT symbol FROM team_chunks WHERE revision_id = $1 AND symbol IS NOT NULL AND kind = ANY($2::text[])', [rev.revision, kinds])).rows.map((r) => String(r['symbol']));
  const matched = matchNames(names, name, fetch);
  if (matched.size === 0) return [];
  const rows = (
    await sql(
      `SELECT c.symbol, c.container, c.signature, c.kind, c.start_line, c.end_line, f.path, f.language FROM team_chunks c JOIN team_files f ON f.id = c.file_id
       WHERE c.revision_id = $1 AND c.symbol = ANY($2::text[]) AND c.kind = ANY($3::text[]) ORDER BY f.path COLLATE "C", c.start_line`,
      [rev.revision, [...matched.keys()], kinds],
    )
  ).rows;
  const seen = new Set<string>();
  const hits: TeamSymbolHit[] = [];
  for (const r of rows) {
    const symbol = String(r['symbol']);
    const c = r['container'] === null ? null : String(r['container']);
    if (container && !containerMatches(c, container)) continue;
    const def = { path: String(r['path']), container: c, name: symbol, startLine: Number(r['start_line']) };
    const id = formatSymbolId(def);
    // a definition split over several chunks is one definition
    if (seen.has(id)) continue;
    seen.add(id);
    const how = matched.get(symbol)!;
    hits.push({ repo: rev.name, id, ...def, kind: String(r['kind']) as SymbolKind, signature: r['signature'] === null ? null : String(r['signature']), language: String(r['language']), endLine: Number(r['end_line']), ...how });
  }
  return hits;
}

/** `TeamStore.searchSymbols`: QUERY_EMPTY / INVALID_ARGUMENT for a bad name or limit, REPO_NOT_FOUND for an unknown repository. */
export async function searchTeamSymbols(db: PgDb, query: string, options: TeamSymbolOptions = {}): Promise<TeamSymbolHit[]> {
  const { raw, limit } = checkSymbolQuery(query, options.limit);
  const { name, container } = splitQualified(raw);
  const kinds = options.kinds && options.kinds.length > 0 ? options.kinds : SYMBOL_KINDS;
  const fetch = limit * 4 + 50;
  return db.read(async (sql) => {
    const all: TeamSymbolHit[] = [];
    for (const rev of await heads(sql, options.repos)) all.push(...(await revisionHits(sql, rev, name, container, kinds, fetch)));
    const order = compareHits(name);
    return all.sort((a, b) => order(a, b) || a.repo.localeCompare(b.repo)).slice(0, limit);
  });
}
