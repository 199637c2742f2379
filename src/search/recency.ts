/**
 * The recency boost (issue 22, seed 001): a multiplicative factor that favours recent content
 * without reordering what the query ranks far apart. `factor = 1 + weight × 0.5^(age / halfLife)`:
 * content from now gets `1 + weight` (× 1.15 at the documents' default weight 0.15), content one
 * half-life old `1 + weight / 2`, old content → 1. A chunk without a timestamp gets exactly 1: no
 * penalty for not knowing. Content dated in the future counts as age 0. Pure: `now` is passed in.
 */

const DAY_MS = 86_400_000;

export interface RecencyParams {
  /** 0–1; 0 is off. */
  readonly weight: number;
  /** Days for the boost to halve; > 0. */
  readonly halfLifeDays: number;
  /** The time ages are measured from, ms since the epoch (the engine's Clock). */
  readonly nowMs: number;
}

/** The factor for content written at `tsMs`, and its age in days (undefined without a timestamp). */
export function recencyFactor(tsMs: number | null | undefined, p: RecencyParams): { factor: number; ageDays?: number } {
  if (!(p.weight > 0) || tsMs === null || tsMs === undefined || !Number.isFinite(tsMs)) return { factor: 1 };
  const ageDays = Math.max(0, (p.nowMs - tsMs) / DAY_MS);
  return { factor: 1 + p.weight * 0.5 ** (ageDays / p.halfLifeDays), ageDays };
}

/**
 * Multiplies each hit's score by its recency factor and re-sorts (stable: equal scores keep their
 * order); with `explain`, appends `recency ×F (age N d)` to the hit's `why`.
 */
export function applyRecency<T extends { readonly score: number; readonly tsMs: number | null; readonly why?: readonly string[] | undefined }>(hits: readonly T[], p: RecencyParams): T[] {
  if (!(p.weight > 0)) return [...hits];
  return hits
    .map((h, i) => {
      const { factor, ageDays } = recencyFactor(h.tsMs, p);
      if (factor === 1) return { h, i };
      return { h: { ...h, score: h.score * factor, why: [...(h.why ?? []), `recency ×${factor.toFixed(3)} (age ${Math.round(ageDays!)} d)`] }, i };
    })
    .sort((a, b) => b.h.score - a.h.score || a.i - b.i)
    .map(({ h }) => h);
}
