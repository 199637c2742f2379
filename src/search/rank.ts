/**
 * Pure ranking steps after FTS5: score sign, overlap dedupe, file aggregation.
 * No I/O, no clock; see docs/DESIGN.md "Ranking".
 */
import { stemOf, testSubject } from './relations.js';
import { localeOrder } from '../core/text-order.js';

export interface RankedChunk {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  /** Higher is better. */
  readonly score: number;
  /** What changed the score after BM25, in order (`test file ×0.6`, `file support +1.2`...). */
  readonly why?: readonly string[];
}

const fmt = (x: number): string => String(Math.round(x * 100) / 100);

/** Best first; ties by path, then line, so that an order never depends on the input's. */
const byScore = (a: RankedChunk, b: RankedChunk): number => b.score - a.score || localeOrder(a.path, b.path) || a.startLine - b.startLine;
const because = (h: RankedChunk, ...reasons: string[]): readonly string[] => [...(h.why ?? []), ...reasons];

/** FTS5's bm25() is "lower is better" and negative; scry's score is `-bm25`, so higher is better. */
export function scoreFromBm25(bm25: number): number {
  return -bm25;
}

/** Scores are rounded for display only; ordering always uses the unrounded value. */
export function displayScore(score: number): number {
  return Math.round(score * 1e4) / 1e4;
}

/**
 * Structural priors, as score multipliers (documented in docs/DESIGN.md "Ranking"):
 * - a test file is usually not what a question is about: ×0.6, unless the query asks for tests;
 * - a long query (issue body, stack trace) asks for code to change, so docs count ×0.6;
 * - a chunk of import statements names what a file uses, not what it does: ×0.5 (its words
 *   are short and dense, so BM25 alone would often put it above the code that uses them).
 */
export const TEST_FILE_FACTOR = 0.6;
export const DOCS_IN_LONG_QUERY_FACTOR = 0.6;
export const IMPORTS_FACTOR = 0.5;

const TEST_DIR_RE = /(?:^|\/)(?:tests?|__tests__|spec|specs|testing)\//i;
const TEST_FILE_RE = /(?:\.(?:test|spec)\.[^/]+$|(?:^|\/)test_[^/]+\.py$|_test\.(?:py|go|rb|exs?|cc|cpp|c)$|(?:Tests?|Spec)\.(?:java|kt|cs|scala|swift|php)$)/;

export function isTestPath(path: string): boolean {
  return TEST_DIR_RE.test(path) || TEST_FILE_RE.test(path);
}

/** True when the user asks for tests themselves (then test files are not demoted). */
export function queryWantsTests(terms: readonly string[]): boolean {
  return terms.some((t) => /^(?:tests?|testing|spec|specs|unittest|pytest|fixtures?)$/i.test(t));
}

const DOCS_WORD_RE = /^(?:docs?|documentation|readme|guide|tutorial|changelog|config(?:uration)?|settings?|manual|install(?:ing|ation)?|usage|example|getting)$/i;
/** A question a user asks of documentation: `how do I...`, `why is...`, `which option...`. */
const QUESTION_RE = /^\s*(?:how|why|which|what|when|where|can i|is there|getting started)\b/i;

/**
 * True when the user asks about documentation or configuration itself (then neither is
 * demoted): a docs word among the terms, or a short query phrased as a question.
 */
export function queryWantsDocs(terms: readonly string[], query = '', long = false): boolean {
  return terms.some((t) => DOCS_WORD_RE.test(t)) || (!long && QUESTION_RE.test(query));
}

export interface PriorContext {
  readonly longQuery: boolean;
  readonly wantsTests: boolean;
  /** The query is about docs or config: those are not demoted. */
  readonly wantsDocs?: boolean;
  /** Multiplier of docs, config and text chunks in any query not about them; 1 is off. */
  readonly nonCode?: number;
  /** Multiplier of code chunks that define nothing (top-level statements, line windows); 1 is off. */
  readonly nonDefinition?: number;
}

/** Code chunk kinds that are no definition: top-level statements and line windows. */
const NON_DEFINITION_KINDS = new Set(['statements', 'window', 'file']);

export interface PriorInput extends RankedChunk {
  readonly contentType: string;
  readonly kind?: string;
}

/** Multiplies each score by its priors and re-sorts best first (ties: path, then line). */
export function applyPriors<T extends PriorInput>(hits: readonly T[], ctx: PriorContext): T[] {
  return hits
    .map((h) => {
      let factor = 1;
      const reasons: string[] = [];
      const apply = (f: number, reason: string): void => {
        if (f === 1) return;
        factor *= f;
        reasons.push(`${reason} ×${fmt(f)}`);
      };
      if (!ctx.wantsTests && isTestPath(h.path)) apply(TEST_FILE_FACTOR, 'test file');
      if (ctx.longQuery && h.contentType === 'docs') apply(DOCS_IN_LONG_QUERY_FACTOR, 'docs in a long query');
      if (h.kind === 'imports') apply(IMPORTS_FACTOR, 'imports');
      if (!ctx.wantsDocs && h.contentType !== 'code') apply(ctx.nonCode ?? 1, `${h.contentType} in a code question`);
      if (h.contentType === 'code' && h.kind !== undefined && NON_DEFINITION_KINDS.has(h.kind)) apply(ctx.nonDefinition ?? 1, 'no definition');
      return factor === 1 ? h : { ...h, score: h.score * factor, why: because(h, ...reasons) };
    })
    .sort(byScore);
}

/**
 * Drops a hit whose line range overlaps a better-scored hit of the same file (overlapping
 * windows would otherwise show the same lines twice). Input order must be best first; kept order
 * is preserved.
 */
export function dedupeOverlaps<T extends RankedChunk>(hits: readonly T[]): T[] {
  const kept: T[] = [];
  const byPath = new Map<string, T[]>();
  for (const h of hits) {
    const same = byPath.get(h.path) ?? [];
    if (same.some((k) => h.startLine <= k.endLine && k.startLine <= h.endLine)) continue;
    same.push(h);
    byPath.set(h.path, same);
    kept.push(h);
  }
  return kept;
}

export interface StructureContext {
  /** Lowercase names the query mentions as identifiers or words (a definition of one is boosted). */
  readonly names: ReadonlySet<string>;
  /** Multiplier for a chunk defining one of `names`; 1 is off. */
  readonly definitionBoost: number;
  /** Share of a test chunk's score passed to chunks of the source file it tests; 0 is off. */
  readonly testToSource: number;
}

export interface StructureInput extends RankedChunk {
  readonly symbol?: string | null | undefined;
}

/**
 * Structural priors from the query and the candidates themselves (docs/DESIGN.md "Ranking"):
 * - a chunk that defines a symbol the query names is multiplied by `definitionBoost`;
 * - a test chunk passes `testToSource` of its score to the best candidate chunk of the source
 *   file it tests (`foo.test.ts` → `foo.ts`), added once per source file, from its best test.
 * Re-sorts best first.
 */
export function applyStructure<T extends StructureInput>(hits: readonly T[], ctx: StructureContext): T[] {
  // sorted after the boost, so that the credit below goes to each file's best chunk
  let out = hits
    .map((h) => {
      const sym = h.symbol?.toLowerCase();
      return ctx.definitionBoost !== 1 && sym && ctx.names.has(sym) ? { ...h, score: h.score * ctx.definitionBoost, why: because(h, `defines ${h.symbol} ×${fmt(ctx.definitionBoost)}`) } : h;
    })
    .sort(byScore);
  if (ctx.testToSource > 0) {
    const fromTests = new Map<string, { bonus: number; from: string }>();
    for (const h of out) {
      if (!isTestPath(h.path)) continue;
      const subject = testSubject(h.path)?.toLowerCase();
      if (subject && !fromTests.has(subject)) fromTests.set(subject, { bonus: h.score * ctx.testToSource, from: h.path });
    }
    const credited = new Set<string>();
    out = out.map((h) => {
      if (fromTests.size === 0 || isTestPath(h.path) || credited.has(h.path)) return h;
      const credit = fromTests.get(stemOf(h.path).toLowerCase());
      if (credit === undefined) return h;
      credited.add(h.path);
      return { ...h, score: h.score + credit.bonus, why: because(h, `tested by ${credit.from} +${fmt(credit.bonus)}`) };
    });
  }
  return out.sort(byScore);
}

/**
 * Evidence from the rest of a file: each chunk gains `weight` × the sum of the two best other
 * chunks of its file among the candidates, so a file that matches in several places rises above
 * a file with one lucky chunk. 0 is off. Re-sorts best first.
 */
export function addFileSupport<T extends RankedChunk>(hits: readonly T[], weight: number): T[] {
  if (weight <= 0) return [...hits];
  const byPath = new Map<string, number[]>();
  for (const h of hits) {
    const scores = byPath.get(h.path);
    if (scores) scores.push(h.score);
    else byPath.set(h.path, [h.score]);
  }
  for (const scores of byPath.values()) scores.sort((a, b) => b - a);
  return hits
    .map((h) => {
      const top = byPath.get(h.path)!;
      // the two best scores of the file other than this chunk's own
      const others = top[0] === h.score ? top.slice(1, 3) : top[1] === h.score ? [top[0]!, top[2] ?? 0] : top.slice(0, 2);
      const bonus = others.reduce((a, b) => a + b, 0) * weight;
      return bonus > 0 ? { ...h, score: h.score + bonus, why: because(h, `file support +${fmt(bonus)}`) } : h;
    })
    .sort(byScore);
}

/**
 * At most `cap` chunks of one file in a row of results: the others move below the chunks of
 * other files (kept in order), so one large file does not crowd out the rest. With `within` > 0,
 * a file's later chunk also moves down unless it scores at least `within` × the file's best, so a
 * file shows its extra chunks only when they are nearly as good as its first. With `spread` > 0, a
 * chunk moved down goes only below the best chunks of the next `spread` files that follow it (a
 * file's second function stays near its first; 0: below every other file's kept chunks). Input
 * order must be best first; each moved chunk says so on `why`. `cap` 0 is off.
 */
export function capPerFile<T extends RankedChunk>(hits: readonly T[], cap: number, within = 0, spread = 0): T[] {
  if (cap <= 0) return [...hits];
  const seen = new Map<string, { n: number; best: number }>();
  const out: T[] = [];
  // chunks moved down, each waiting for `files` more files' best chunks (earlier ones never wait longer)
  const waiting: Array<{ hit: T; files: number }> = [];
  const where = spread > 0 ? `below the next ${spread} file${spread === 1 ? '' : 's'}` : 'below the other files';
  for (const h of hits) {
    const file = seen.get(h.path);
    const n = (file?.n ?? 0) + 1;
    const best = file?.best ?? h.score;
    seen.set(h.path, { n, best });
    if (n <= cap && (n === 1 || h.score >= within * best)) {
      out.push(h);
      if (n > 1 || spread === 0) continue;
      for (const w of waiting) w.files -= 1;
      while (waiting.length > 0 && waiting[0]!.files <= 0) out.push(waiting.shift()!.hit);
      continue;
    }
    const reason = n > cap ? `chunk ${n} of its file, cap ${cap}` : `chunk ${n} of its file at ${fmt(best > 0 ? h.score / best : 0)} of its best, under ${fmt(within)}`;
    waiting.push({ hit: { ...h, why: because(h, `${reason}: ${where}`) }, files: spread });
  }
  return [...out, ...waiting.map((w) => w.hit)];
}

/**
 * A soft per-file cap: a file's n-th chunk (best first) counts × `decay`^(n − 1), so each further
 * chunk of one file must beat the other files' by more to stay above them. 1 is off. Input order
 * must be best first; re-sorts best first.
 */
export function decayPerFile<T extends RankedChunk>(hits: readonly T[], decay: number): T[] {
  if (decay >= 1) return [...hits];
  const seen = new Map<string, number>();
  return hits
    .map((h) => {
      const n = seen.get(h.path) ?? 0;
      seen.set(h.path, n + 1);
      const factor = decay ** n;
      return n === 0 ? h : { ...h, score: h.score * factor, why: because(h, `chunk ${n + 1} of its file ×${fmt(factor)}`) };
    })
    .sort(byScore);
}

/**
 * Blends each chunk's score with its file's: score × ((1 − share) + share × file / best file),
 * where a file's score is its best chunk + FILE_SUPPORT_WEIGHT × its next two (as aggregateFiles)
 * over the candidates, and `best file` the highest of them. A chunk of the file that matches best
 * overall keeps its score; one of a weak file loses up to `share` of it. 0 is off. Re-sorts best first.
 */
export function blendFileScore<T extends RankedChunk>(hits: readonly T[], share: number): T[] {
  if (share <= 0 || hits.length === 0) return [...hits];
  const files = new Map(aggregateFiles(hits).map((f) => [f.best.path, f.score]));
  const top = Math.max(...files.values());
  if (!(top > 0)) return [...hits];
  return hits
    .map((h) => {
      const norm = Math.max(0, files.get(h.path)! / top);
      const factor = 1 - share + share * norm;
      return factor === 1 ? h : { ...h, score: h.score * factor, why: because(h, `file score ${fmt(norm)} of the best ×${fmt(factor)}`) };
    })
    .sort(byScore);
}

/** Weight of the 2nd and 3rd best chunks of a file in its file score. */
export const FILE_SUPPORT_WEIGHT = 0.2;

/**
 * One entry per file: the best chunk represents the file; file score =
 * best + FILE_SUPPORT_WEIGHT × (2nd + 3rd best). Sorted by that score, ties by path.
 */
export function aggregateFiles<T extends RankedChunk>(hits: readonly T[]): Array<{ best: T; score: number; chunks: number }> {
  const groups = new Map<string, T[]>();
  for (const h of hits) {
    const g = groups.get(h.path);
    if (g) g.push(h);
    else groups.set(h.path, [h]);
  }
  const out = [...groups.values()].map((g) => {
    const sorted = [...g].sort((a, b) => b.score - a.score);
    const support = (sorted[1]?.score ?? 0) + (sorted[2]?.score ?? 0);
    return { best: sorted[0]!, score: sorted[0]!.score + FILE_SUPPORT_WEIGHT * support, chunks: g.length };
  });
  return out.sort((a, b) => b.score - a.score || localeOrder(a.best.path, b.best.path));
}
