/**
 * The file-evidence pass of a lexical search (issue 18; `search.ranking.fileScore` and
 * `mentionBoost`, set for long queries by `byKind.long`): gathers from the index what
 * file-score.ts turns into per-file multipliers.
 * - File scoring: for each kept group, how many chunks of each file match it (one FTS5 walk per
 *   group, rowids only, counted per file in memory: SearchRepo.fileMatchCountsMany; groups
 *   matching more than FILE_SCAN_MAX_DF chunks are left out before any walk, their idf is small
 *   and they cost the most), then BM25 with files as documents.
 * - Mentions: the names the text writes as code, looked up in the symbol table (exact name);
 *   a file defining one that no candidate chunk comes from joins the candidates with the chunk
 *   that defines it, scored by the same FTS5 expression (a chunk that does not match it stays out).
 */
import type { IndexStore } from '../store/index-store.js';
import type { FtsCandidate, FtsFilter } from '../store/search-repo.js';
import { fileEvidenceScores, filePrior, mentionedNames, mentionStrengths, type FileMention, type GroupFiles, type NameDefinitions } from './file-score.js';
import { groupExpression } from './fts-expression.js';
import type { TermGroup } from './query-parse.js';
import { isTestPath, type PriorContext } from './rank.js';

/** A group matching more chunks than this is not walked for file scoring. */
export const FILE_SCAN_MAX_DF = 5_000;
/** A name defined in more files than this is no mention of one of them. */
export const MENTION_MAX_FILES = 3;
/** At most this many names of one text are looked up. */
const MAX_NAMES = 40;

export interface FileEvidenceInput {
  readonly text: string;
  readonly kept: readonly TermGroup[];
  /** Document frequency of each kept group (chunks), aligned with `kept`. */
  readonly keptDf: readonly number[];
  readonly expression: string;
  readonly weights: readonly number[];
  readonly candidates: readonly FtsCandidate[];
  readonly filter: FtsFilter;
  /** The query's priors: a file's score is weighed as its chunks are (file-score.ts `filePrior`). */
  readonly priors: PriorContext;
}

export interface FileEvidenceOutcome {
  readonly candidates: FtsCandidate[];
  readonly fileScores?: Map<string, number> | undefined;
  readonly mentions?: Map<string, FileMention> | undefined;
  /** Groups left out of file scoring as too common. */
  readonly skipped: number;
  /** Per file: IDF-weighted share of the walked groups it matches, and its lines (file-rank.ts reads them). */
  readonly coverage?: Map<string, number> | undefined;
  readonly lines?: Map<string, number> | undefined;
}

/** File-level BM25 of every file matching a kept group. */
export function scoreFiles(
  store: IndexStore,
  kept: readonly TermGroup[],
  keptDf: readonly number[],
  priors: PriorContext,
): { scores: Map<string, number>; skipped: number; coverage: Map<string, number>; lines: Map<string, number> } {
  const stats = store.read(() => store.search.fileStats());
  // the cut is decided from the groups' document frequencies before any walk
  const walked = kept.filter((_, i) => (keptDf[i] ?? 0) <= FILE_SCAN_MAX_DF);
  const counts = store.read(() => store.search.fileMatchCountsMany(walked.map(groupExpression)));
  const groups: GroupFiles[] = walked.map((g, i) => ({ weight: g.weight, files: counts[i]! }));
  // fileBm25 with the priors, fileCoverage and the lines, in one pass
  const { scores, coverage, lines } = fileEvidenceScores(groups, stats, (path, type) => filePrior(path, type, priors));
  return { scores, skipped: kept.length - walked.length, coverage, lines };
}

/** The files defining each name the text writes as code (source files only: a test defining it is not the subject). */
export function findMentions(store: IndexStore, text: string): Map<string, FileMention> {
  const defs: NameDefinitions[] = mentionedNames(text)
    .slice(0, MAX_NAMES)
    .map((name) => ({
      name,
      paths: store
        .read(() => store.structure.byName(name, undefined, 50))
        .filter((r) => r.name === name && !isTestPath(r.path))
        .map((r) => r.path),
    }));
  return mentionStrengths(defs, MENTION_MAX_FILES);
}

/** The defining chunk of each mentioned file no candidate comes from, when it matches the expression. */
function mentionedChunks(store: IndexStore, input: FileEvidenceInput, mentions: ReadonlyMap<string, FileMention>): FtsCandidate[] {
  const have = new Set(input.candidates.map((c) => c.path));
  const ids: number[] = [];
  for (const [path, m] of mentions) {
    if (have.has(path)) continue;
    const def = store.read(() => store.structure.byName(m.names[0]!, undefined, 50)).find((r) => r.path === path && r.name === m.names[0]);
    const id = def ? store.read(() => store.search.chunkAt(path, def.startLine)) : undefined;
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  if (ids.length === 0 || !input.expression) return [];
  const bm25 = store.read(() => store.search.scoreIds(input.expression, input.weights, ids));
  return store.read(() => store.search.byChunkIds(ids, input.filter)).flatMap((c) => {
    const score = bm25.get(c.chunkId);
    return score === undefined ? [] : [{ ...c, bm25: score }];
  });
}

/** Runs the parts of the pass that are on (`fileScore` > 0, `mentionBoost` > 0). */
export function gatherFileEvidence(store: IndexStore, input: FileEvidenceInput, settings: { readonly fileScore: number; readonly mentionBoost: number }): FileEvidenceOutcome {
  let candidates = [...input.candidates];
  let mentions: Map<string, FileMention> | undefined;
  if (settings.mentionBoost > 0) {
    mentions = findMentions(store, input.text);
    candidates = [...candidates, ...mentionedChunks(store, input, mentions)];
  }
  if (settings.fileScore <= 0) return { candidates, mentions, skipped: 0 };
  const { scores, skipped, coverage, lines } = scoreFiles(store, input.kept, input.keptDf, input.priors);
  return { candidates, fileScores: scores, mentions, skipped, coverage, lines };
}
