/**
 * The model's file-level prior for long queries (issue 18, `search.fusion.filePrior`): an issue
 * text names a problem, not a function, and its words are spread over the file that needs the
 * change; the model's cosine of one chunk is a weak signal, but the best cosines of a file's chunks,
 * read over a deep vector list, say which files the text is about. The prior multiplies every chunk
 * of a file by the same factor, so files the model likes rise and the lexical order of the chunks
 * inside a file is kept. Pure; docs/DESIGN.md "Ranking II", "The model's file prior".
 */
import type { RankedChunk } from './rank.js';
import { localeOrder } from '../core/text-order.js';

/** The file prior's settings for one query. */
export interface FilePriorSettings {
  /** The prior's weight: the least-liked file's chunks count × (1 − weight), the best-liked file's × 1. Range 0–0.9. */
  readonly weight: number;
  /** A file's model score is the mean of its `top` best chunk cosines (fewer chunks: the mean of those). */
  readonly top: number;
}

/**
 * Each file's model score: the mean of its `top` best cosines among `hits` (chunks of the deep
 * vector list and the lexical candidates, each once).
 */
export function fileCosines(hits: Iterable<{ readonly path: string; readonly cosine: number }>, top: number): Map<string, number> {
  const k = Math.max(1, top);
  // each file's best k so far, descending: a cosine equal to one kept comes after it, as a stable sort puts it
  const byFile = new Map<string, number[]>();
  for (const h of hits) {
    const best = byFile.get(h.path);
    if (!best) {
      byFile.set(h.path, [h.cosine]);
      continue;
    }
    if (best.length === k && !(h.cosine > best[k - 1]!)) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]! < h.cosine) at--;
    best.splice(at, 0, h.cosine);
    if (best.length > k) best.pop();
  }
  const out = new Map<string, number>();
  for (const [path, best] of byFile) out.set(path, best.reduce((a, c) => a + c, 0) / best.length);
  return out;
}

/**
 * How the file scores of a query's pieces (query-pieces.ts; the whole query's first) become one:
 * `max`, the best of the whole query's and each piece's score; `mean`, each vector's scores
 * min-max normalised over `pool` (the files being ranked), then averaged, so each piece votes
 * with the same weight whatever its length.
 */
export type PieceCombine = 'max' | 'mean';

export function combineFileScores(perVector: ReadonlyArray<ReadonlyMap<string, number>>, pool: ReadonlySet<string>, how: PieceCombine, extra: ReadonlySet<string> = new Set()): Map<string, number> {
  if (perVector.length === 1) return new Map(perVector[0]);
  const out = new Map<string, number>();
  if (how === 'max') {
    for (const m of perVector) for (const [p, s] of m) if (s > (out.get(p) ?? -Infinity)) out.set(p, s);
    return out;
  }
  for (const m of perVector) {
    const inPool = [...pool].map((p) => m.get(p)).filter((s): s is number => s !== undefined);
    const lo = Math.min(...inPool);
    const span = Math.max(...inPool) - lo;
    // `extra` files (the model's own candidates, file-recall.ts) are scored on the pool's range, clamped
    for (const p of [...pool, ...[...extra].filter((e) => !pool.has(e))]) {
      const s = m.get(p);
      const norm = s === undefined || !(span > 0) ? 0 : Math.min(1, Math.max(0, (s - lo) / span));
      out.set(p, (out.get(p) ?? 0) + norm / perVector.length);
    }
  }
  return out;
}

/** The multiplier of each file of `hits`: min-max of its model score over the files `hits` holds, mapped to [1 − weight, 1]. */
export function filePriorFactors(
  paths: Iterable<string>,
  files: ReadonlyMap<string, number>,
  weight: number,
  over?: ReadonlySet<string>,
): Map<string, { factor: number; cosine: number | undefined }> {
  const unique = [...new Set(paths)];
  // the range is taken over `over` when given (the lexical pool's files), others clamped to it
  const scores = (over ? [...over] : unique).map((p) => files.get(p)).filter((s): s is number => s !== undefined);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  const out = new Map<string, { factor: number; cosine: number | undefined }>();
  for (const p of unique) {
    const s = files.get(p);
    // a file the model did not score counts as the least-liked one
    const norm = s === undefined || !(hi > lo) ? (s === undefined ? 0 : 1) : Math.min(1, Math.max(0, (s - lo) / (hi - lo)));
    out.set(p, { factor: 1 - weight + weight * norm, cosine: s });
  }
  return out;
}

const fmt = (x: number): string => String(Math.round(x * 100) / 100);

/**
 * `hits` with each chunk's score × its file's factor (`filePriorFactors`), best first (ties by
 * path, then line); each changed chunk says so in `why`. The factor is the same for every chunk
 * of a file, so a file's chunks keep their order.
 */
export function applyFilePrior<T extends RankedChunk>(
  hits: readonly T[],
  files: ReadonlyMap<string, number>,
  settings: FilePriorSettings,
  over?: ReadonlySet<string>,
): Array<T & { readonly why?: readonly string[] | undefined }> {
  if (settings.weight <= 0 || hits.length === 0 || files.size === 0) return [...hits];
  const factors = filePriorFactors(
    hits.map((h) => h.path),
    files,
    settings.weight,
    over,
  );
  return hits
    .map((h) => {
      const f = factors.get(h.path)!;
      const said = f.cosine === undefined ? 'no model score' : `model file score ${fmt(f.cosine)}`;
      return { ...h, score: h.score * f.factor, why: [...(h.why ?? []), `file prior: ${said} ×${fmt(f.factor)}`] };
    })
    .sort((a, b) => b.score - a.score || localeOrder(a.path, b.path) || a.startLine - b.startLine);
}
