/**
 * The name list (issue 18, docs/DESIGN.md "Ranking II"): definitions whose names a one-sentence
 * description names, as extra candidates of the blend. The lexical list ranks chunks by all their
 * words, so a short function whose body shares few of the description's words, among big
 * neighbours whose comments repeat them, may rank below the first 50 though its name says what
 * the sentence says (`isWhitespace` for "Check if a character is whitespace"). This list asks the
 * `symbol` field alone (names and their split words) for the query's words and the verbs a
 * description uses for a name's first word, keeps the best-named (name-match.ts), and scores each
 * by the lexical expression, as if the lexical list had ranked it.
 */
import type { IndexStore } from '../store/index-store.js';
import type { FtsCandidate, FtsFilter } from '../store/search-repo.js';
import { ftsString } from './fts-expression.js';
import { bestName, impliedVerbs } from './name-match.js';
import { isTestPath, scoreFromBm25, TEST_FILE_FACTOR } from './rank.js';

/** Index of `symbol` among the FTS columns (stem, path, symbol, signature, body, parts, doc). */
const SYMBOL_COLUMN = 2;
const FTS_COLUMNS = 7;
/** Names read per kept one: the list keeps the best-named of `depth × NAME_FETCH` matches. */
const NAME_FETCH = 5;

export interface NameListParams {
  /** The raw query words (lower case, function words out) and the query's name words (`queryNameWords`). */
  readonly words: readonly string[];
  readonly nameWords: readonly string[];
  readonly depth: number;
  readonly filter: FtsFilter;
  /** Chunks already candidates: not returned. */
  readonly exclude: ReadonlySet<number>;
  /** The lexical expression that scores each kept chunk, and the field weights. */
  readonly expression: string;
  readonly weights: readonly number[];
  readonly wantsTests: boolean;
}

/** A name-list chunk with the lexical score it gets (0 when the lexical expression does not match it). */
export type NameCandidate = FtsCandidate & { readonly score: number };

/** The `symbol : (...)` expression of the query's words and implied verbs, or '' when there is none. */
export function nameExpression(words: readonly string[]): string {
  const all = [...new Set([...words, ...impliedVerbs(words)])].filter((w) => /^[a-z0-9]+$/.test(w));
  return all.length === 0 ? '' : `symbol : (${all.map((w) => ftsString([w])).join(' OR ')})`;
}

/** Up to `depth` chunks defining a name the query names, not already candidates, best-named first. */
export function nameCandidates(store: IndexStore, p: NameListParams): NameCandidate[] {
  const expression = nameExpression(p.words);
  if (!expression || p.depth <= 0 || p.nameWords.length === 0) return [];
  const symbolOnly = Array.from({ length: FTS_COLUMNS }, (_, i) => (i === SYMBOL_COLUMN ? 1 : 0));
  const rows = store.read(() => store.search.search(expression, symbolOnly, p.depth * NAME_FETCH, p.filter));
  const named = rows
    .filter((r) => !p.exclude.has(r.chunkId) && r.symbol)
    .map((r) => ({ r, s: bestName(p.nameWords, [r.symbol!]).score }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.r.chunkId - b.r.chunkId)
    .slice(0, p.depth)
    .map((x) => x.r);
  if (named.length === 0 || !p.expression) return [];
  const bm25 = store.read(() => store.search.scoreIds(p.expression, p.weights, named.map((r) => r.chunkId)));
  return named.map((r) => {
    const b = bm25.get(r.chunkId);
    const score = b === undefined ? 0 : scoreFromBm25(b) * (!p.wantsTests && isTestPath(r.path) ? TEST_FILE_FACTOR : 1);
    return { ...r, bm25: b ?? 0, score };
  });
}
