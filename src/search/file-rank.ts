/**
 * The learned file ranker for long texts (issue 18, filerank; `search.ranking.fileRanker`, set per
 * kind by `byKind.long`): an issue text asks for the file to change, and the lexical pool of a long
 * text usually holds it (large tuning texts: 161 of 199 gold files in 100 chunks) but below other
 * files. Each file of the pool is described by explainable features in 0–1 (its chunks' lexical
 * scores, the file as a document, coverage of the text's terms, mentions, the model's file prior)
 * and scored by a linear model (models/ranker/file-weights.json, trained by
 * bench/train-file-ranker.ts); the chunks are then re-ordered by their file's new score, each file's
 * chunks keeping their order. Pure: no I/O. docs/DESIGN.md "Ranking II", "The learned file ranker".
 */
import { localeOrder } from '../core/text-order.js';
import type { FileMention } from './file-score.js';
import type { RankedChunk } from './rank.js';
import type { RankerTrace } from './search-result.js';

/** The features, in the order of the weights file. */
export const FILE_FEATURES = [
  /** The file's best chunk score in the pool (the rule pipeline, file evidence included) over the pool's best: 1 + ln(ratio) / 4, at least 0. */
  'best',
  /** 1 / log2(1 + the file's rank in the pool's order). */
  'bestRank',
  /** The best chunk's plain BM25 over the pool's best. */
  'bm25',
  /** The file's three best chunk scores over three times the pool's best. */
  'top3',
  /** log2(1 + the file's chunks in the pool) / log2(21), at most 1. */
  'chunks',
  /** The file as a document (file-score.ts `fileBm25`) over the best file's. */
  'evidence',
  /** 1 / log2(1 + the file's rank by `evidence` among every file it scored). */
  'evidenceRank',
  /** IDF-weighted share of the text's terms the file matches (file-score.ts `fileCoverage`). */
  'coverage',
  /** Share of the text's kept words found in the file's path. */
  'pathCoverage',
  /** The file defines names the text writes as code (file-score.ts `mentionStrengths`), 0–1. */
  'mention',
  /** The text writes the file's path, its file name or its dotted module path. */
  'pathNamed',
  /** The text writes the file's stem (4+ characters) as a word. */
  'stemNamed',
  /** A test file, in a text not about tests. */
  'test',
  /** Docs, config or text. */
  'nonCode',
  /** log2(1 + the file's lines) / 14, at most 1. */
  'size',
  /** The model's file score (file-vectors.ts, pieces combined), 0–1 over the pool; 0 without vectors. */
  'prior',
  /** 1 / log2(1 + the file's rank by `prior`); 0 without vectors. */
  'priorRank',
] as const;

export type FileFeatureName = (typeof FILE_FEATURES)[number];
export type FileWeights = Readonly<Record<FileFeatureName, number>>;

/** Two weight sets, like the chunk ranker's: `lexical` (no model features) and `hybrid`; `temperature` spreads the files' scores into chunk factors. */
export interface FileRankModel {
  readonly version: number;
  readonly lexical: FileWeights;
  readonly hybrid: FileWeights;
  /** A chunk counts × exp((file score − best file score) / temperature) × its share of its file's best chunk. */
  readonly temperature: number;
}

/** What the ranker knows of one pool chunk. */
export interface FileRankChunk extends RankedChunk {
  readonly bm25: number;
  readonly contentType: string;
}

/** What the ranker knows of the query and its file evidence (lexical-search.ts `fileEvidence`, file-prior-search.ts). */
export interface FileRankContext {
  /** The text as written (for paths, file names and stems). */
  readonly text: string;
  /** The kept words, lowercased. */
  readonly words: readonly string[];
  readonly wantsTests: boolean;
  readonly isTest: (path: string) => boolean;
  readonly fileScores?: ReadonlyMap<string, number> | undefined;
  readonly coverage?: ReadonlyMap<string, number> | undefined;
  readonly lines?: ReadonlyMap<string, number> | undefined;
  readonly mentions?: ReadonlyMap<string, FileMention> | undefined;
  /** The model's file scores (absent: no vectors, the `lexical` set). */
  readonly prior?: ReadonlyMap<string, number> | undefined;
}

export type FileFeatureVector = Record<FileFeatureName, number>;

const rankFeature = (rank: number): number => (rank > 0 ? 1 / Math.log2(1 + rank) : 0);
const clamp01 = (x: number): number => (x > 1 ? 1 : x > 0 ? x : 0);

/**
 * 1-based rank of a path by descending value (ties: path order), by binary search over the values
 * sorted once: the file evidence scores every file matching a term (thousands in a big
 * repository), the ranker needs the ranks of the pool's few.
 */
function ranker(values: ReadonlyMap<string, number> | undefined): (path: string) => number {
  if (!values || values.size === 0) return () => 0;
  const entries = [...values].sort((a, b) => b[1] - a[1]);
  return (path) => {
    const v = values.get(path);
    if (v === undefined) return 0;
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (entries[mid]![1] > v) lo = mid + 1;
      else hi = mid;
    }
    // equal values: the paths before it in path order
    let ties = 0;
    for (let i = lo; i < entries.length && entries[i]![1] === v; i++) if (localeOrder(entries[i]![0], path) < 0) ties++;
    return lo + ties + 1;
  };
}

/** Lowercased path forms a text may write: the path, the file name, the dotted module path. */
function pathForms(path: string): { named: string[]; stem: string } {
  const lower = path.toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const noExt = dot > 0 ? lower.slice(0, lower.length - (name.length - dot)) : lower;
  const module = noExt.replace(/\/__init__$/, '').replace(/\//g, '.');
  return { named: [lower, ...(dot > 0 ? [name] : []), ...(module.includes('.') ? [module] : [])], stem };
}

const WORD_EDGE = /[a-z0-9_]/;

/** True when `needle` occurs in `hay` not inside a longer word. */
function hasWord(hay: string, needle: string): boolean {
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    const before = i > 0 ? hay[i - 1]! : ' ';
    const after = hay[i + needle.length] ?? ' ';
    if (!WORD_EDGE.test(before) && !WORD_EDGE.test(after)) return true;
  }
  return false;
}

/** The features of each file of `pool` (best chunk first order), each in 0–1. */
export function fileFeatures(pool: readonly FileRankChunk[], ctx: FileRankContext): Map<string, FileFeatureVector> {
  const byFile = new Map<string, FileRankChunk[]>();
  for (const c of pool) {
    const list = byFile.get(c.path);
    if (list) list.push(c);
    else byFile.set(c.path, [c]);
  }
  const top = Math.max(...pool.map((c) => c.score), 0);
  const topBm25 = Math.max(...pool.map((c) => -c.bm25), 0);
  const order = [...byFile].map(([p, cs]) => [p, Math.max(...cs.map((c) => c.score))] as const).sort((a, b) => b[1] - a[1] || localeOrder(a[0], b[0]));
  const poolRank = new Map(order.map(([p], i) => [p, i + 1]));
  const evidenceTop = ctx.fileScores && ctx.fileScores.size > 0 ? Math.max(...ctx.fileScores.values()) : 0;
  const evidenceRank = ranker(ctx.fileScores);
  const poolPrior = ctx.prior ? new Map([...byFile.keys()].flatMap((p) => (ctx.prior!.has(p) ? [[p, ctx.prior!.get(p)!] as const] : []))) : undefined;
  const priorRank = ranker(poolPrior);
  const text = ctx.text.toLowerCase();
  const words = [...new Set(ctx.words.map((w) => w.toLowerCase()))];
  const out = new Map<string, FileFeatureVector>();
  for (const [path, chunks] of byFile) {
    const scores = chunks.map((c) => c.score).sort((a, b) => b - a);
    const best = scores[0]!;
    const forms = pathForms(path);
    const lowerPath = path.toLowerCase();
    const lines = ctx.lines?.get(path) ?? Math.max(...chunks.map((c) => c.endLine));
    out.set(path, {
      best: top > 0 && best > 0 ? clamp01(1 + Math.log(best / top) / 4) : 0,
      bestRank: rankFeature(poolRank.get(path) ?? 0),
      bm25: topBm25 > 0 ? clamp01(Math.max(...chunks.map((c) => -c.bm25)) / topBm25) : 0,
      top3: top > 0 ? clamp01(scores.slice(0, 3).reduce((a, s) => a + Math.max(0, s), 0) / (3 * top)) : 0,
      chunks: clamp01(Math.log2(1 + chunks.length) / Math.log2(21)),
      evidence: evidenceTop > 0 ? clamp01((ctx.fileScores!.get(path) ?? 0) / evidenceTop) : 0,
      evidenceRank: rankFeature(evidenceRank(path)),
      coverage: clamp01(ctx.coverage?.get(path) ?? 0),
      pathCoverage: words.length > 0 ? words.filter((w) => lowerPath.includes(w)).length / words.length : 0,
      mention: clamp01(ctx.mentions?.get(path)?.strength ?? 0),
      pathNamed: forms.named.some((f) => hasWord(text, f)) ? 1 : 0,
      stemNamed: forms.stem.length >= 4 && forms.stem !== '__init__' && hasWord(text, forms.stem) ? 1 : 0,
      test: !ctx.wantsTests && ctx.isTest(path) ? 1 : 0,
      nonCode: chunks[0]!.contentType !== 'code' ? 1 : 0,
      size: clamp01(Math.log2(1 + lines) / 14),
      prior: clamp01(poolPrior?.get(path) ?? 0),
      priorRank: rankFeature(priorRank(path)),
    });
  }
  return out;
}

/** Σ weight × feature, with each non-zero contribution (the `--explain` trace). */
export function scoreFile(x: FileFeatureVector, w: FileWeights): { score: number; contributions: Record<string, number> } {
  let score = 0;
  const contributions: Record<string, number> = {};
  for (const f of FILE_FEATURES) {
    const c = w[f] * x[f];
    if (c !== 0) contributions[f] = c;
    score += c;
  }
  return { score, contributions };
}

const fmt = (x: number): string => String(Math.round(x * 100) / 100);

/** The `why` line of a file: its score, rank and largest contributions. */
function fileWhy(rank: number, score: number, contributions: Readonly<Record<string, number>>): string {
  const parts = Object.entries(contributions)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .slice(0, 4)
    .map(([f, c]) => `${f} ${c >= 0 ? '+' : ''}${fmt(c)}`);
  return `file ranker: file ${rank} (score ${fmt(score)}: ${parts.join(', ')})`;
}

/**
 * `pool` re-ordered by the files' scores: each chunk × exp((file score − best) / temperature) ×
 * its score over its file's best chunk's, so a file's chunks keep their order and the files come in
 * the ranker's order (a file's first chunk leads it). With `explain`, each chunk carries its file's
 * `ranker` trace and a `why` line.
 */
export function rankPoolFiles<T extends FileRankChunk>(
  pool: readonly T[],
  ctx: FileRankContext,
  model: FileRankModel,
  explain = false,
): Array<T & { readonly why?: readonly string[] | undefined; readonly ranker?: RankerTrace | undefined }> {
  if (pool.length === 0) return [];
  const name = ctx.prior ? 'hybrid' : 'lexical';
  const weights = model[name];
  const features = fileFeatures(pool, ctx);
  const scored = new Map([...features].map(([p, x]) => [p, { x, ...scoreFile(x, weights) }]));
  const order = [...scored].sort((a, b) => b[1].score - a[1].score || localeOrder(a[0], b[0]));
  const fileRank = new Map(order.map(([p], i) => [p, i + 1]));
  const bestScore = order[0]![1].score;
  const fileBest = new Map<string, number>();
  for (const c of pool) fileBest.set(c.path, Math.max(fileBest.get(c.path) ?? -Infinity, c.score));
  const t = model.temperature > 0 ? model.temperature : 1;
  return pool
    .map((c) => {
      const f = scored.get(c.path)!;
      const best = fileBest.get(c.path)!;
      const share = best > 0 ? Math.max(0, c.score) / best : 0;
      // the file's factor, times a tiny tie-break so the file order stays strict
      const score = Math.exp((f.score - bestScore) / t) * (share > 0 ? share : 1e-9);
      if (!explain) return { ...c, score };
      const ranker: RankerTrace = { model: `file-${name}`, score: f.score, features: { ...f.x }, contributions: f.contributions };
      return { ...c, score, ranker, why: [...(c.why ?? []), fileWhy(fileRank.get(c.path)!, f.score, f.contributions)] };
    })
    .sort((a, b) => b.score - a.score || fileRank.get(a.path)! - fileRank.get(b.path)! || a.startLine - b.startLine);
}

/** Reads a weights file (shape checked; a missing weight counts 0). Throws on a malformed one. */
export function parseFileRankModel(json: unknown): FileRankModel {
  const o = json as Partial<Record<string, unknown>> | null;
  if (!o || typeof o !== 'object') throw new Error('not an object');
  const weights = (name: string): FileWeights => {
    const w = o[name] as Record<string, unknown> | undefined;
    if (!w || typeof w !== 'object') throw new Error(`no "${name}" weights`);
    const out = {} as Record<FileFeatureName, number>;
    for (const f of FILE_FEATURES) {
      const v = w[f] ?? 0;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`"${name}.${f}" is not a finite number`);
      out[f] = v;
    }
    return out;
  };
  const t = o.temperature ?? 1;
  if (typeof t !== 'number' || !(t > 0)) throw new Error('"temperature" must be a number above 0');
  return { version: typeof o.version === 'number' ? o.version : 0, lexical: weights('lexical'), hybrid: weights('hybrid'), temperature: t };
}
