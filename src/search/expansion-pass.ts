/**
 * The expansion pass of a lexical search (issue 17): the query's expansion terms (expansion.ts)
 * scored as a second FTS5 expression and added to the main expression's BM25 at a low weight:
 * `bm25 = main + weight/3 × expansion` (each expansion group is repeated by its strength in
 * thirds, so a term of strength 1 at weight 0.3 counts 0.3 of a query word). Candidates are the
 * main expression's, plus, when scoring both expressions together fits the budget and no group
 * is required, those of `main OR expansion` (chunks that only the expansion finds).
 */
import type { IndexStore } from '../store/index-store.js';
import type { FtsCandidate, FtsFilter } from '../store/search-repo.js';
import { expansionGroups, type ExpansionTable } from './expansion.js';
import { buildFtsExpression } from './fts-expression.js';
import { MAX_GROUP_WEIGHT, type TermGroup } from './query-parse.js';
import { SCORE_BUDGET } from './query-plan.js';

export interface ExpansionSettings {
  readonly table: ExpansionTable;
  /** How much an expansion term counts against a query word (0–1). */
  readonly weight: number;
}

/** What the expansion added, for `meta` and `--explain`. */
export interface ExpansionTrace {
  readonly weight: number;
  /** Each expansion term searched, with the query word it came from. */
  readonly terms: readonly { readonly term: string; readonly from: string }[];
  /** Chunk id → the expansion's share of its score (positive). */
  readonly added: ReadonlyMap<number, number>;
}

export interface ExpansionInput {
  /** Every group of the query: a word the index lacks (dropped by selection) is the one most worth expanding. */
  readonly groups: readonly TermGroup[];
  /** The groups the main expression searched. */
  readonly kept: readonly TermGroup[];
  /** Document frequency (rows to score) of the main expression's groups, summed. */
  readonly mainCost: number;
  /** The expression the main candidates came from ('' when no query word is in the index). */
  readonly mainExpression: string;
  readonly candidates: readonly FtsCandidate[];
  readonly weights: readonly number[];
  readonly fetch: number;
  readonly filter: FtsFilter;
  readonly totalChunks: number;
  readonly maxDfRatio: number;
}

/** The expansion groups the index holds, not too common, not a stem of a kept query word. */
function liveGroups(store: IndexStore, input: ExpansionInput, settings: ExpansionSettings): { groups: TermGroup[]; from: string[]; cost: number } {
  const proposed = expansionGroups(input.groups, settings.table);
  if (proposed.length === 0) return { groups: [], from: [], cost: 0 };
  const queryWords = [...new Set(input.groups.flatMap((g) => g.alternatives.flat()))];
  const words = proposed.map((p) => p.group.alternatives[0]![0]!);
  const stats = store.read(() => store.search.termStats([...queryWords, ...words]));
  const stemsOfQuery = new Set(stats.filter((s) => s.index < queryWords.length).map((s) => s.term));
  const byIndex = new Map(stats.map((s) => [s.index, s]));
  const groups: TermGroup[] = [];
  const from: string[] = [];
  let cost = 0;
  proposed.forEach((p, i) => {
    const s = byIndex.get(queryWords.length + i);
    if (!s || s.df === 0 || s.df > input.maxDfRatio * input.totalChunks || stemsOfQuery.has(s.term)) return;
    if (groups.some((g) => byIndex.get(queryWords.length + words.indexOf(g.alternatives[0]![0]!))?.term === s.term)) return;
    groups.push(p.group);
    from.push(p.from);
    cost += s.df;
  });
  return { groups, from, cost };
}

/**
 * The main candidates rescored with the expansion (and joined by what it alone finds), best first,
 * at most `fetch`. FTS5's bm25() is a sum over the phrases of the expression, so a candidate of
 * `main OR expansion` scores main = joined − expansion. Skipped when scoring the expansion terms
 * would exceed the budget (terms that common add nothing a query word does not).
 */
export function expandCandidates(store: IndexStore, input: ExpansionInput, settings: ExpansionSettings): { candidates: FtsCandidate[]; trace?: ExpansionTrace } {
  const { groups, from, cost } = liveGroups(store, input, settings);
  if (groups.length === 0 || settings.weight <= 0 || cost > SCORE_BUDGET) return { candidates: [...input.candidates] };
  const expression = buildFtsExpression(groups);
  const expScore = store.read(() => store.search.scoreTop(expression, input.weights, SCORE_BUDGET));
  const byId = new Map(input.candidates.map((c) => [c.chunkId, c]));
  const mainScore = new Map(input.candidates.map((c) => [c.chunkId, c.bm25]));
  if (!input.kept.some((g) => g.required) && input.mainCost + cost <= SCORE_BUDGET) {
    const joined = input.mainExpression === '' ? expression : `(${input.mainExpression}) OR ${expression}`;
    for (const c of store.read(() => store.search.search(joined, input.weights, input.fetch, input.filter))) {
      if (byId.has(c.chunkId)) continue;
      byId.set(c.chunkId, c);
      mainScore.set(c.chunkId, c.bm25 - (expScore.get(c.chunkId) ?? 0));
    }
  }
  const scale = settings.weight / MAX_GROUP_WEIGHT;
  const added = new Map<number, number>();
  const candidates = [...byId.keys()]
    .map((id) => {
      const exp = scale * (expScore.get(id) ?? 0);
      if (exp !== 0) added.set(id, -exp);
      return { ...byId.get(id)!, bm25: mainScore.get(id)! + exp };
    })
    .sort((a, b) => a.bm25 - b.bm25 || a.chunkId - b.chunkId)
    .slice(0, input.fetch);
  return { candidates, trace: { weight: settings.weight, terms: groups.map((g, i) => ({ term: g.raw, from: from[i]! })), added } };
}
