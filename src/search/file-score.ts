/**
 * File-level evidence for long queries (issue 18, "the right FILE in the top 5"): pure math over
 * statistics the store gathers (file-evidence-pass.ts). A long issue text has many weak terms; a
 * file matching many of them, across its chunks, is more likely the one to change than a file with
 * one lucky chunk. Two signals, each a score multiplier on the file's chunks:
 * - the file as one document: BM25 over files, a file's term frequency being how many of its
 *   chunks match the term (`fileBm25`), blended as `(1 − share) + share × file / best file`;
 * - mentions: a file that defines a name the text writes as code (`DataStats`, `get_running_exps`),
 *   a name few files define, counts × (1 + boost × strength), strength = Σ 1 / (files defining it), at most 1.
 * No I/O; docs/DESIGN.md "Ranking II", "Long texts: files first".
 */
import { isCompoundIdentifier } from '../core/code-tokens.js';
import { localeOrder } from '../core/text-order.js';
import { DOCS_IN_LONG_QUERY_FACTOR, isTestPath, TEST_FILE_FACTOR, type PriorContext, type RankedChunk } from './rank.js';

/** How many chunks of each file match one query group, and the group's query weight. */
export interface GroupFiles {
  /** The group's weight in the query (1–3: title, written as code). */
  readonly weight: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly chunks: number; readonly lines: number; readonly contentType?: string }>;
}

/** BM25's saturation and length normalisation, as FTS5 uses for chunks. */
const K1 = 1.2;
const B = 0.75;

/**
 * BM25 with files as documents: Σ over groups of weight × idf(files containing it) × saturated
 * term frequency, the frequency being the file's matching chunks and the length its lines over
 * the mean, times the file's `prior` when given. Files matching no group are absent.
 */
export function fileBm25(groups: readonly GroupFiles[], stats: { readonly files: number; readonly meanLines: number }, prior?: (path: string, contentType: string | undefined) => number): Map<string, number> {
  const out = new Map<string, number>();
  const types = new Map<string, string | undefined>();
  const mean = stats.meanLines > 0 ? stats.meanLines : 1;
  for (const g of groups) {
    const df = g.files.length;
    if (df === 0) continue;
    const n = Math.max(stats.files, df);
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const f of g.files) {
      const norm = 1 - B + (B * Math.max(1, f.lines)) / mean;
      const tf = (f.chunks * (K1 + 1)) / (f.chunks + K1 * norm);
      out.set(f.path, (out.get(f.path) ?? 0) + g.weight * idf * tf);
      types.set(f.path, f.contentType);
    }
  }
  if (prior) for (const [path, score] of out) out.set(path, score * prior(path, types.get(path)));
  return out;
}

/**
 * Each file's IDF-weighted share of the groups it matches (the file ranker's `coverage`,
 * file-rank.ts): Σ idf of the groups with a chunk in the file / Σ idf of all groups walked.
 */
export function fileCoverage(groups: readonly GroupFiles[], stats: { readonly files: number }): Map<string, number> {
  const out = new Map<string, number>();
  let total = 0;
  for (const g of groups) {
    const df = g.files.length;
    const n = Math.max(stats.files, df, 1);
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    total += idf;
    for (const f of g.files) out.set(f.path, (out.get(f.path) ?? 0) + idf);
  }
  if (total > 0) for (const [p, v] of out) out.set(p, v / total);
  return out;
}

/** A long text's file evidence from its groups' per-file counts: `fileBm25` (prior applied), `fileCoverage`, and each file's lines. */
export interface FileEvidenceScores {
  readonly scores: Map<string, number>;
  readonly coverage: Map<string, number>;
  readonly lines: Map<string, number>;
}

/**
 * `fileBm25` (with `prior`), `fileCoverage` and each file's line count in one pass over the rows,
 * one map lookup a row (a long text's groups hold ~10K–30K rows on the npm corpus): the same
 * numbers to the last bit, summed in the same order, and the maps in the same key order.
 */
export function fileEvidenceScores(groups: readonly GroupFiles[], stats: { readonly files: number; readonly meanLines: number }, prior?: (path: string, contentType: string | undefined) => number): FileEvidenceScores {
  const slot = new Map<string, number>();
  const paths: string[] = [];
  const types: Array<string | undefined> = [];
  const lineCount: number[] = [];
  const bm25: number[] = [];
  const cover: number[] = [];
  const mean = stats.meanLines > 0 ? stats.meanLines : 1;
  let total = 0;
  for (const g of groups) {
    const df = g.files.length;
    // fileCoverage counts a group matching nothing in its total; fileBm25 skips it
    const coverIdf = Math.log(1 + (Math.max(stats.files, df, 1) - df + 0.5) / (df + 0.5));
    total += coverIdf;
    if (df === 0) continue;
    const idf = Math.log(1 + (Math.max(stats.files, df) - df + 0.5) / (df + 0.5));
    for (const f of g.files) {
      let i = slot.get(f.path);
      if (i === undefined) {
        i = paths.length;
        slot.set(f.path, i);
        paths.push(f.path);
        bm25.push(0);
        cover.push(0);
        types.push(undefined);
        lineCount.push(0);
      }
      const norm = 1 - B + (B * Math.max(1, f.lines)) / mean;
      const tf = (f.chunks * (K1 + 1)) / (f.chunks + K1 * norm);
      bm25[i] = bm25[i]! + g.weight * idf * tf;
      cover[i] = cover[i]! + coverIdf;
      types[i] = f.contentType;
      lineCount[i] = f.lines;
    }
  }
  const scores = new Map<string, number>();
  const coverage = new Map<string, number>();
  const lines = new Map<string, number>();
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!;
    scores.set(path, prior ? bm25[i]! * prior(path, types[i]) : bm25[i]!);
    coverage.set(path, total > 0 ? cover[i]! / total : cover[i]!);
    lines.set(path, lineCount[i]!);
  }
  return { scores, coverage, lines };
}

/**
 * The file-level part of the priors (rank.ts `applyPriors`) for a whole file: test files, docs in
 * a long query, non-code in a code question. A file score is weighed as its chunks are, so that a
 * changelog naming every term does not become the best file that the others are measured against.
 */
export function filePrior(path: string, contentType: string | undefined, ctx: PriorContext): number {
  let f = 1;
  if (!ctx.wantsTests && isTestPath(path)) f *= TEST_FILE_FACTOR;
  if (ctx.longQuery && contentType === 'docs') f *= DOCS_IN_LONG_QUERY_FACTOR;
  if (!ctx.wantsDocs && contentType !== undefined && contentType !== 'code') f *= ctx.nonCode ?? 1;
  return f;
}

const NAME_RE = /[A-Za-z_][A-Za-z0-9_]*/g;
const BACKTICK_RE = /`([^`\n]{1,200})`/g;

/**
 * Names a text writes as code, in their own case: compound identifiers (`DataStats`,
 * `get_running_exps`, `parseQuery`) anywhere, and capitalised identifiers of 4+ characters inside
 * backticks (`Inferer`). Each once, in order of first appearance.
 */
export function mentionedNames(text: string): string[] {
  const out = new Set<string>();
  // a plain lowercase word in backticks (`show`, `logger`) names too many things to say which file
  for (const m of text.matchAll(BACKTICK_RE)) for (const id of m[1]!.matchAll(NAME_RE)) if (id[0].length >= 4 && (isCompoundIdentifier(id[0]) || /[A-Z]/.test(id[0]))) out.add(id[0]);
  for (const m of text.matchAll(NAME_RE)) if (m[0].length >= 4 && isCompoundIdentifier(m[0]) && /[a-z]/.test(m[0])) out.add(m[0]);
  return [...out];
}

/** One mentioned name and the files defining it (exactly that name). */
export interface NameDefinitions {
  readonly name: string;
  readonly paths: readonly string[];
}

/** A file's mention strength and the names behind it. */
export interface FileMention {
  readonly strength: number;
  readonly names: readonly string[];
}

/**
 * Files that define the names a text mentions, with strength Σ 1 / (files defining the name),
 * at most 1. A name defined in more than `maxFiles` files says nothing about which one (`forward`,
 * `__init__`) and is skipped.
 */
export function mentionStrengths(defs: readonly NameDefinitions[], maxFiles: number): Map<string, FileMention> {
  const out = new Map<string, { strength: number; names: string[] }>();
  for (const d of defs) {
    const paths = [...new Set(d.paths)];
    if (paths.length === 0 || paths.length > maxFiles) continue;
    for (const p of paths) {
      const m = out.get(p) ?? { strength: 0, names: [] };
      m.strength = Math.min(1, m.strength + 1 / paths.length);
      m.names.push(d.name);
      out.set(p, m);
    }
  }
  return out;
}

export interface FileEvidence {
  /** File-level BM25 per path (absent: no file scoring). */
  readonly fileScores?: ReadonlyMap<string, number> | undefined;
  /** Share of the chunk's score that follows its file's score over the best file's, 0–1. */
  readonly share: number;
  readonly mentions?: ReadonlyMap<string, FileMention> | undefined;
  /** A fully mentioned file's chunks count × (1 + boost). */
  readonly boost: number;
}

const fmt = (x: number): string => String(Math.round(x * 100) / 100);

/** Multiplies each chunk by its file's evidence; re-sorts best first (ties: path, then line). */
export function applyFileEvidence<T extends RankedChunk>(hits: readonly T[], e: FileEvidence): T[] {
  const scores = e.share > 0 && e.fileScores && e.fileScores.size > 0 ? e.fileScores : undefined;
  const top = scores ? Math.max(...scores.values()) : 0;
  return hits
    .map((h) => {
      const reasons: string[] = [];
      let factor = 1;
      if (scores && top > 0) {
        const norm = (scores.get(h.path) ?? 0) / top;
        const f = 1 - e.share + e.share * norm;
        factor *= f;
        reasons.push(`file as a document ${fmt(norm)} of the best ×${fmt(f)}`);
      }
      const m = e.boost > 0 ? e.mentions?.get(h.path) : undefined;
      if (m) {
        const f = 1 + e.boost * m.strength;
        factor *= f;
        reasons.push(`file defines ${m.names.join(', ')} (named in the query) ×${fmt(f)}`);
      }
      return factor === 1 && reasons.length === 0 ? h : { ...h, score: h.score * factor, why: [...(h.why ?? []), ...reasons] };
    })
    .sort((a, b) => b.score - a.score || localeOrder(a.path, b.path) || a.startLine - b.startLine);
}
