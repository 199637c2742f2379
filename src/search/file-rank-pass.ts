/**
 * The file ranker's step in a long query's search (file-rank.ts): reads what the lexical search
 * gathered (its file evidence and kept words) and, with vectors, the model's file scores, and
 * re-orders the pool. Runs only when the file evidence ran (a text of 20+ terms with `fileScore` or
 * `mentionBoost` on); otherwise the pool is returned as it is.
 */
import { rankPoolFiles, type FileRankChunk, type FileRankContext, type FileRankModel } from './file-rank.js';
import type { FileEvidenceOutcome } from './file-evidence-pass.js';
import { isTestPath } from './rank.js';
import type { RankerTrace } from './search-result.js';

/** The ranker's view of a query: its text, the lexical outcome's words and evidence, the model's file scores when given. */
/** What the ranker reads of a lexical search's outcome (lexical-search.ts `LexicalOutcome`). */
export interface LexicalEvidence {
  readonly query?: { readonly words: readonly string[]; readonly wantsTests: boolean } | undefined;
  readonly fileEvidence?: FileEvidenceOutcome | undefined;
}

export function fileRankContext(text: string, lexical: LexicalEvidence, prior?: ReadonlyMap<string, number>): FileRankContext | undefined {
  const e = lexical.fileEvidence;
  if (!e) return undefined;
  return {
    text,
    words: lexical.query?.words ?? [],
    wantsTests: lexical.query?.wantsTests ?? false,
    isTest: isTestPath,
    fileScores: e.fileScores,
    coverage: e.coverage,
    lines: e.lines,
    mentions: e.mentions,
    prior,
  };
}

/** `pool` ranked by its files (file-rank.ts) when the context exists, else unchanged. */
export function rankFilesOfPool<T extends FileRankChunk>(
  pool: readonly T[],
  ctx: FileRankContext | undefined,
  model: FileRankModel | undefined,
  explain: boolean,
): Array<T & { readonly why?: readonly string[] | undefined; readonly ranker?: RankerTrace | undefined }> {
  return ctx && model ? rankPoolFiles(pool, ctx, model, explain) : [...pool];
}
