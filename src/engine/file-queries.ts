import { EngineError } from '../core/errors.js';
import { pathMatcher } from '../search/filters.js';
import { MAX_QUERY_BYTES } from '../search/query-parse.js';
import type { SearchResponse } from '../search/search-result.js';
import type { IndexStore } from '../store/index-store.js';
import type { FileListing, ListFilesOptions, SearchOptions, SimilarOptions } from './engine-api.js';

/** `Engine.listFiles`: the indexed files matching the globs, hidden ones only when asked, in one snapshot. */
export async function listIndexedFiles(snapshot: <T>(fn: (store: IndexStore) => T) => Promise<T>, options: ListFilesOptions): Promise<FileListing> {
  const limit = options.limit ?? 200;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 10000' });
  const globs = options.glob === undefined ? [] : typeof options.glob === 'string' ? [options.glob] : [...options.glob];
  const match = pathMatcher(globs.map((g) => g.trim()).filter((g) => g !== ''));
  const hidden = (p: string): boolean => p.startsWith('.') || p.includes('/.');
  const all = (await snapshot((store) => store.files.listing())).filter((f) => (options.includeHidden || !hidden(f.path)) && (!match || match(f.path)));
  return { files: all.slice(0, limit), total: all.length };
}

/** `Engine.similar`: a search for code like the snippet (vectors when the index has them), without the snippet's own file. */
export async function similarTo(search: (query: string, options: SearchOptions) => Promise<SearchResponse>, snippet: string, options: SimilarOptions): Promise<SearchResponse> {
  if (typeof snippet !== 'string' || snippet.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'code_snippet', reason: 'must be non-empty code' });
  const limit = options.limit ?? 5;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 100' });
  const exclude = options.excludeFile?.replace(/^\.\//, '');
  // the long-query path picks the snippet's most distinctive identifiers; cut at a line boundary
  const cut = Buffer.from(snippet, 'utf8').subarray(0, MAX_QUERY_BYTES).toString('utf8');
  const query = cut.length < snippet.length ? cut.slice(0, Math.max(cut.lastIndexOf('\n'), 1)) : snippet;
  // vectors when the index has them (find_similar is a vector search); else the lexical long-query path
  const response = await search(query, { limit: Math.min(limit + 20, 1000), language: options.language, rerank: false, mode: 'vector' });
  const results = response.results.filter((r) => r.path !== exclude).slice(0, limit);
  const semantic = response.meta.mode === 'vector' ? response.meta.semantic : `lexical similarity (no vectors): ${response.meta.semantic}`;
  return { ...response, results, meta: { ...response.meta, semantic } };
}
