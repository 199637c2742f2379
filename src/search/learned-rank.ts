/**
 * The learned ranker (issues 17 and 18): every candidate (lexical top-N ∪ vector top-M) is described
 * by a few explainable features in [0, 1] and scored by a linear model, Σ weight × feature. The
 * weights are data (models/ranker/weights.json), trained with a pairwise logistic objective on the
 * tuning half of the development benchmark and the NL slice by bench/train-ranker.ts. There are two
 * weight sets: `lexical` (no vector features) and `hybrid` (with the model's cosine). Pure: no I/O.
 */

import { bestName, NameMemo, nameWeights } from './name-match.js';

/** The features, in the order of the weights file. */
export const FEATURES = [
  /** The rule-based lexical score (BM25 + priors + structure + file support) over the best candidate's. */
  'lexical',
  /** 1 / log2(1 + lexical rank); 0 when the lexical list did not rank it. */
  'lexicalRank',
  /** Plain BM25 over the code-aware fields, over the best candidate's. */
  'bm25',
  /** Its file's lexical score (best chunk + 0.2 × next two) over the best file's. */
  'file',
  /** IDF-weighted share of the query's words found in the chunk text. */
  'coverage',
  /** Share of the query's words found in the chunk's symbol, container and signature. */
  'nameCoverage',
  /** Share of the query's words found in the chunk's path. */
  'pathCoverage',
  /** The chunk defines a symbol the query names. */
  'definesName',
  /** The chunk is a definition (function, class, method...), not statements or a line window. */
  'definition',
  /** A test file, in a query not about tests. */
  'test',
  /** Docs, config or text, in a query not about them. */
  'nonCode',
  /** A chunk of import statements. */
  'imports',
  /** log2(1 + lines) / 8, capped at 1: larger chunks hold more but are harder to cite. */
  'size',
  /** The model's cosine similarity of query and chunk (0 without a model). */
  'cosine',
  /** The cosine over the best candidate's. */
  'cosineNorm',
  /** 1 / log2(1 + vector rank); 0 when the vector list did not rank it. */
  'cosineRank',
  /** Share of the words the query writes as code (`parseConfig`, `max_retries`) found in the chunk text. */
  'codeWords',
  /** In a long query (issue body, stack trace) only: `lexical`, `file`, `coverage` and `cosineNorm` again, so their weights can differ there. */
  'lexicalLong',
  'fileLong',
  'coverageLong',
  'cosineLong',
  /** The name match (name-match.ts): Dice overlap of the query's words and the best-named definition in the chunk. */
  'nameMatch',
] as const;

export type FeatureName = (typeof FEATURES)[number];
export type FeatureVector = Record<FeatureName, number>;

/** One linear model: a weight per feature. */
export type LinearWeights = Readonly<Record<FeatureName, number>>;

/**
 * Per-file diversity of the final list: at most `cap` chunks of a file, extras only within `within` ×
 * its best; a moved chunk goes below the next `spread` files (0: below all); a file's n-th chunk
 * first counts × `decay`^(n − 1) (absent: 1, off). capPerFile and decayPerFile in rank.ts.
 */
export interface Diversity {
  readonly cap: number;
  readonly within: number;
  readonly spread?: number | undefined;
  readonly decay?: number | undefined;
}

export interface RankerModel {
  readonly version: number;
  readonly lexical: LinearWeights;
  readonly hybrid: LinearWeights;
  readonly diversity: Diversity;
}

/** What the ranker knows of one candidate. */
export interface RankerCandidate {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly kind: string;
  readonly contentType: string;
  readonly symbol: string | null;
  readonly container: string | null;
  readonly signature: string | null;
  /** The chunk's text (for coverage). */
  readonly text: string;
  /** The names of the definitions inside the chunk (for the name match; absent: its symbol). */
  readonly names?: readonly string[] | undefined;
  /** Rule-based lexical score and 1-based rank, when the lexical list ranked it. */
  readonly lexical?: { readonly score: number; readonly rank: number; readonly bm25: number } | undefined;
  /** Cosine and 1-based rank, when the vector list ranked it (rank undefined: a lexical candidate's cosine looked up). */
  readonly vector?: { readonly cosine: number; readonly rank?: number | undefined } | undefined;
}

export interface RankerQuery {
  /** The query's kept words, lowercased. */
  readonly words: readonly string[];
  /** Names the query mentions (lowercased identifiers and words). */
  readonly names: ReadonlySet<string>;
  readonly wantsTests: boolean;
  readonly wantsDocs: boolean;
  /** A long query (issue body, stack trace). */
  readonly long: boolean;
  /** Words the query writes as code, lowercased. */
  readonly codeWords: readonly string[];
  readonly isTest: (path: string) => boolean;
  /** The query's words as the name match reads them (name-match.ts `queryNameWords`); absent: no name match. */
  readonly nameWords?: readonly string[] | undefined;
}

/** Words written as code (an inner capital, `_`, a digit, a dot between words), lowercased; at most 32. */
export function codeWordsOf(query: string): string[] {
  const out = new Set<string>();
  for (const m of query.matchAll(/[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*/g)) {
    const w = m[0];
    if (w.length >= 3 && /[a-z][A-Z]|_|\d|\./.test(w)) out.add(w.toLowerCase());
  }
  return [...out].slice(0, 32);
}

const NON_DEFINITION = new Set(['statements', 'window', 'file', 'imports', 'section', 'text']);

/** A word's matching prefix: long words lose a suffix (`uploads` → `uploa`), a crude stem. */
function stemPrefix(w: string): string {
  return w.length > 5 ? w.slice(0, Math.max(5, w.length - 3)) : w;
}

/** The distinct matching prefixes of the query's words (2+ characters). */
export function queryStems(words: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of words) for (const w of raw.toLowerCase().split(/[^a-z0-9_$]+/)) if (w.length >= 2) out.add(stemPrefix(w));
  return [...out];
}

const share = (stems: readonly string[], weights: readonly number[], text: string): number => {
  let got = 0;
  let all = 0;
  stems.forEach((s, i) => {
    all += weights[i]!;
    if (text.includes(s)) got += weights[i]!;
  });
  return all > 0 ? got / all : 0;
};

const rankFeature = (rank: number | undefined): number => (rank === undefined ? 0 : 1 / Math.log2(1 + rank));

/** The features read from the chunk's text (`RankerCandidate.text`); every other one comes from the candidate's row. */
export const TEXT_FEATURES: readonly FeatureName[] = ['coverage', 'codeWords', 'coverageLong'];

/** True when `w` weighs a text feature: a model that weighs none (the blend) scores the same without reading chunk texts. */
export function weighsText(w: LinearWeights): boolean {
  return TEXT_FEATURES.some((f) => w[f] !== 0);
}

/** The features of every candidate; normalisations are over this candidate set. */
export function extractFeatures(cands: readonly RankerCandidate[], q: RankerQuery): FeatureVector[] {
  const stems = queryStems(q.words);
  const lowered = cands.map((c) => c.text.toLowerCase());
  // IDF over the candidates: a word in every candidate says nothing about which one is best
  const idf = stems.map((s) => Math.log(1 + cands.length / (1 + lowered.filter((t) => t.includes(s)).length)));
  const ones = stems.map(() => 1);
  const codeOnes = q.codeWords.map(() => 1);
  const maxOf = (f: (c: RankerCandidate) => number | undefined): number => Math.max(0, ...cands.map((c) => f(c) ?? 0));
  const maxLex = maxOf((c) => c.lexical?.score);
  const maxBm25 = maxOf((c) => c.lexical?.bm25);
  const maxCos = maxOf((c) => c.vector?.cosine);
  const files = fileScores(cands);
  const namesOf = cands.map((c) => c.names ?? (c.symbol ? [c.symbol] : []));
  // one memo for the weights and every candidate's best name: the same names and words recur
  const memo = new NameMemo();
  const nameIdf = q.nameWords ? nameWeights(q.nameWords, namesOf, memo) : undefined;
  const maxFile = Math.max(0, ...files.values());
  return cands.map((c, i): FeatureVector => {
    const contentType = c.contentType;
    const long = q.long ? 1 : 0;
    const lexical = c.lexical && maxLex > 0 ? Math.max(0, c.lexical.score / maxLex) : 0;
    const file = maxFile > 0 ? (files.get(c.path) ?? 0) / maxFile : 0;
    const coverage = share(stems, idf, lowered[i]!);
    const cosineNorm = c.vector && maxCos > 0 ? Math.max(0, c.vector.cosine / maxCos) : 0;
    const names = `${c.symbol ?? ''} ${c.container ?? ''} ${c.signature ?? ''}`.toLowerCase();
    const lines = Math.max(1, c.endLine - c.startLine + 1);
    return {
      lexical,
      lexicalRank: rankFeature(c.lexical?.rank),
      bm25: c.lexical && maxBm25 > 0 ? Math.max(0, c.lexical.bm25 / maxBm25) : 0,
      file,
      coverage,
      nameCoverage: share(stems, ones, names),
      pathCoverage: share(stems, ones, c.path.toLowerCase()),
      definesName: c.symbol && q.names.has(c.symbol.toLowerCase()) ? 1 : 0,
      definition: contentType === 'code' && !NON_DEFINITION.has(c.kind) ? 1 : 0,
      test: !q.wantsTests && q.isTest(c.path) ? 1 : 0,
      nonCode: !q.wantsDocs && contentType !== 'code' ? 1 : 0,
      imports: c.kind === 'imports' ? 1 : 0,
      size: Math.min(1, Math.log2(1 + lines) / 8),
      cosine: c.vector ? Math.max(0, c.vector.cosine) : 0,
      cosineNorm,
      cosineRank: rankFeature(c.vector?.rank),
      codeWords: share(q.codeWords, codeOnes, lowered[i]!),
      lexicalLong: lexical * long,
      fileLong: file * long,
      coverageLong: coverage * long,
      cosineLong: cosineNorm * long,
      nameMatch: q.nameWords ? bestName(q.nameWords, namesOf[i]!, nameIdf, memo).score : 0,
    };
  });
}

/** Each file's lexical score: its best chunk + 0.2 × its next two (as aggregateFiles), over the lexical candidates. */
function fileScores(cands: readonly RankerCandidate[]): Map<string, number> {
  const byPath = new Map<string, number[]>();
  for (const c of cands) {
    if (!c.lexical) continue;
    const list = byPath.get(c.path);
    if (list) list.push(c.lexical.score);
    else byPath.set(c.path, [c.lexical.score]);
  }
  const out = new Map<string, number>();
  for (const [path, scores] of byPath) {
    scores.sort((a, b) => b - a);
    out.set(path, Math.max(0, scores[0]! + 0.2 * ((scores[1] ?? 0) + (scores[2] ?? 0))));
  }
  return out;
}

/**
 * The score-level blend of `search.fusion.blend` (issue 17): the rule-based lexical score plus `w` ×
 * the model's cosine, each over the query's best candidate, plus `names` × the name match
 * (`nameMatch`, `search.fusion.blendNames`, issue 18), every other feature 0.
 */
export function blendWeights(w: number, names = 0): LinearWeights {
  return Object.fromEntries(FEATURES.map((f) => [f, f === 'lexical' ? 1 : f === 'cosineNorm' ? w : f === 'nameMatch' ? names : 0])) as Record<FeatureName, number>;
}

/** The blend keeps every chunk the lexical pipeline would (no per-file cap). */
export const BLEND_DIVERSITY: Diversity = { cap: 0, within: 0 };

export interface LinearScore {
  /** Σ weight × feature. */
  readonly score: number;
  /** Each feature's share of `score` (weight × value), non-zero ones only. */
  readonly contributions: Readonly<Partial<Record<FeatureName, number>>>;
}

export function scoreLinear(x: FeatureVector, w: LinearWeights): LinearScore {
  let score = 0;
  const contributions: Partial<Record<FeatureName, number>> = {};
  for (const f of FEATURES) {
    const v = w[f] * x[f];
    if (v === 0) continue;
    score += v;
    contributions[f] = v;
  }
  return { score, contributions };
}

/** A weights file checked: every feature has a finite weight, diversity in range. Throws a message naming what is wrong. */
export function parseRankerModel(json: unknown): RankerModel {
  const o = json as Partial<Record<string, unknown>> | null;
  if (!o || typeof o !== 'object') throw new Error('not an object');
  const weights = (name: string): LinearWeights => {
    const w = o[name] as Record<string, unknown> | undefined;
    if (!w || typeof w !== 'object') throw new Error(`no "${name}" weights`);
    const out = {} as Record<FeatureName, number>;
    for (const f of FEATURES) {
      const v = w[f] ?? 0;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`"${name}.${f}" is not a finite number`);
      out[f] = v;
    }
    return out;
  };
  const d = o.diversity as Partial<Diversity> | undefined;
  const cap = d?.cap ?? 0;
  const within = d?.within ?? 0;
  if (!Number.isInteger(cap) || cap < 0 || !(within >= 0 && within <= 1)) throw new Error('"diversity" needs an integer cap >= 0 and within in 0–1');
  return { version: typeof o.version === 'number' ? o.version : 0, lexical: weights('lexical'), hybrid: weights('hybrid'), diversity: { cap, within } };
}
