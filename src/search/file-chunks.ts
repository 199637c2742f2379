/**
 * The found files' other chunks (issue 18, docs/DESIGN.md "Ranking II", "The function inside the
 * found file"): on big repositories a one-sentence description of a function usually finds its file
 * (the file's other definitions share its vocabulary) while the function's own chunk, whose
 * comment the sentence is, ranks below the lexical top 50: its body shares few of the sentence's
 * words. So the blend's best few files bring every chunk of theirs that is not yet a candidate,
 * each scored by the lexical expression (0 when it does not match), to be ranked by the same
 * features as the others (the name match and the model's cosine above all).
 */
import type { IndexStore } from '../store/index-store.js';
import type { FtsCandidate, FtsFilter } from '../store/search-repo.js';
import { isTestPath, scoreFromBm25, TEST_FILE_FACTOR } from './rank.js';

export interface FileChunksParams {
  /** The files whose chunks join, best first. */
  readonly paths: readonly string[];
  readonly filter: FtsFilter;
  /** Chunks already candidates: not returned. */
  readonly exclude: ReadonlySet<number>;
  /** The lexical expression that scores each added chunk ('' scores none), and the field weights. */
  readonly expression: string;
  readonly weights: readonly number[];
  readonly wantsTests: boolean;
}

/** A file chunk with the lexical score it gets (0 when the lexical expression does not match it). */
export type FileChunk = FtsCandidate & { readonly score: number };

/** The first `n` distinct paths of `hits`, in order. */
export function topPaths(hits: readonly { readonly path: string }[], n: number): string[] {
  const out: string[] = [];
  for (const h of hits) {
    if (out.length >= n) break;
    if (!out.includes(h.path)) out.push(h.path);
  }
  return out;
}

/** Every chunk of `paths` not in `exclude` that passes the filter, in the files' order then the chunks', scored lexically. */
export function fileChunkCandidates(store: IndexStore, p: FileChunksParams): FileChunk[] {
  if (p.paths.length === 0) return [];
  const order = new Map(p.paths.map((path, i) => [path, i]));
  const ids = store
    .read(() => store.search.chunkIdsOfPaths(p.paths))
    .filter((c) => !p.exclude.has(c.chunkId))
    .sort((a, b) => order.get(a.path)! - order.get(b.path)! || a.chunkId - b.chunkId)
    .map((c) => c.chunkId);
  if (ids.length === 0) return [];
  const rows = store.read(() => store.search.byChunkIds(ids, p.filter));
  const bm25 = p.expression ? store.read(() => store.search.scoreIds(p.expression, p.weights, rows.map((r) => r.chunkId))) : new Map<number, number>();
  return rows.map((r) => {
    const b = bm25.get(r.chunkId);
    const score = b === undefined ? 0 : scoreFromBm25(b) * (!p.wantsTests && isTestPath(r.path) ? TEST_FILE_FACTOR : 1);
    return { ...r, bm25: b ?? 0, score };
  });
}
