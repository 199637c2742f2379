/**
 * Builds the query-side term-association table of query expansion (issue 17): for each word of
 * the training descriptions, the few code tokens (identifier parts as scry's code tokenizer cuts
 * them, src/core/code-tokens.ts) that appear in the code of the pairs whose description holds the
 * word far more often than in code at large ("remove" → delete, unlink; "number" → count, len).
 *
 * Association: document-level co-occurrence over the training pairs, never the held-out packages
 * (train/heldout.ts) nor the benchmark or evaluation repositories (excluded at harvest,
 * train/exclude-names.txt). For a description word q and a code token t, with c(q,t) the pairs
 * holding both (each pair weighted 1/√(pairs of its package)), p = c(q,t)/df(q) and lift =
 * p / (df(t)/N); t is kept when it co-occurs in MIN_PACKAGES packages, lift ≥
 * MIN_LIFT and p ≥ MIN_P, ranked by p·ln(lift), at most `per` tokens per word. The word itself and
 * its inflections (same crude stem) are left out: the index's porter stemmer already matches them.
 * Each kept token's weight is its score over the word's best (1 for the first).
 *
 *   npx tsx train/expand-table.ts --data /work/train-data/v4 [--out models/expand] [--per 4]
 *
 * Writes `<out>/terms.tsv` (`word<TAB>token:weight token:weight ...`, sorted) and `<out>/manifest.json`
 * (format, sha256 of terms.tsv, the data's id, the parameters, counts).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { IDENTIFIER_RE, splitIdentifier } from '../src/core/code-tokens.js';
import { STOP_WORDS } from '../src/search/stop-words.js';
import { EXPANSION_FORMAT, EXPANSION_FORMAT_VERSION, stemOf } from '../src/search/expansion.js';
import type { PairRecord } from './harvest.js';
import { model1 } from './expand-model1.js';
import { isValidationPackage } from './heldout.js';
import { readPairs } from './train.js';

const MIN_DF = 20;
let MIN_LIFT = 4;
let MIN_P = 0.04;
/** Code tokens in more than this share of units say nothing (return, self, this, value). */
let MAX_TOKEN_SHARE = 0.15;
/** An association must hold in this many packages: one project's vocabulary (openstack, dask) is not a translation. */
const MIN_PACKAGES = 6;

/** Plain lowercase words of a description: letters only, 2+ characters, no stop words. */
export function descriptionWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z][a-z]+|[A-Za-z]{2,}/g)) {
    const w = m[0].toLowerCase();
    if (w.length >= 3 && !STOP_WORDS.has(w)) out.add(w);
  }
  return out;
}

/** The code tokens of a unit: every identifier's lowercase parts and, when simple, the identifier itself. */
export function codeTokens(p: Pick<PairRecord, 'code' | 'symbol' | 'path'>): Set<string> {
  const out = new Set<string>();
  for (const id of `${p.path} ${p.symbol} ${p.code}`.match(IDENTIFIER_RE) ?? []) {
    for (const part of splitIdentifier(id)) if (/^[a-z]{2,20}$/.test(part)) out.add(part);
  }
  return out;
}

interface Vocab {
  readonly ids: Map<string, number>;
  readonly words: string[];
  /** Weighted document frequency. */
  readonly df: Float32Array;
}

/** Words with at least `minDf` units, and their document frequency weighted by `weights` (per unit). */
function vocabOf(sets: readonly Set<string>[], minDf: number, weights: Float32Array): Vocab {
  const df = new Map<string, number>();
  const wdf = new Map<string, number>();
  sets.forEach((s, i) => {
    for (const w of s) {
      df.set(w, (df.get(w) ?? 0) + 1);
      wdf.set(w, (wdf.get(w) ?? 0) + weights[i]!);
    }
  });
  const words = [...df].filter(([, n]) => n >= minDf).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  return { ids: new Map(words.map((w, i) => [w, i])), words, df: Float32Array.from(words, (w) => wdf.get(w)!) };
}

export interface TableParams {
  readonly per: number;
  /** Rank by IBM model 1's t(token | word) (train/expand-model1.ts) instead of p·ln(lift); 0 off. */
  readonly model1?: number;
}

/** word → [token, weight] best first. */
export function buildTable(pairs: readonly PairRecord[], params: TableParams): Map<string, Array<[string, number]>> {
  const qs = pairs.map((p) => descriptionWords(p.description));
  const ts = pairs.map(codeTokens);
  // each package weighs √(its units), not its units: a large package's vocabulary does not swamp the table
  const perPkg = new Map<string, number>();
  for (const p of pairs) perPkg.set(p.pkg, (perPkg.get(p.pkg) ?? 0) + 1);
  const unitWeight = Float32Array.from(pairs, (p) => 1 / Math.sqrt(perPkg.get(p.pkg)!));
  const qv = vocabOf(qs, MIN_DF, unitWeight);
  const tv = vocabOf(ts, MIN_DF, unitWeight);
  const n = unitWeight.reduce((a, b) => a + b, 0);
  const T = tv.words.length;
  const counts = new Float32Array(qv.words.length * T);
  // distinct packages per cell: `last` holds the last package (its index + 1) that counted
  const packages = new Uint16Array(qv.words.length * T);
  const last = new Uint16Array(qv.words.length * T);
  const pkgIds = new Map<string, number>();
  for (let i = 0; i < pairs.length; i++) {
    const wi = unitWeight[i]!;
    const pkg = pkgIds.get(pairs[i]!.pkg) ?? pkgIds.set(pairs[i]!.pkg, (pkgIds.size % 65535) + 1).get(pairs[i]!.pkg)!;
    const tids = [...ts[i]!].map((t) => tv.ids.get(t)).filter((x): x is number => x !== undefined);
    for (const q of qs[i]!) {
      const qi = qv.ids.get(q);
      if (qi === undefined) continue;
      const base = qi * T;
      for (const ti of tids) {
        const cell = base + ti;
        counts[cell]! += wi;
        if (last[cell] !== pkg) {
          last[cell] = pkg;
          packages[cell]!++;
        }
      }
    }
  }
  process.stderr.write(`${pairs.length} pairs, ${pkgIds.size} packages, ${qv.words.length} description words × ${T} code tokens\n`);
  const ids = (set: Set<string>, v: Vocab): Int32Array => Int32Array.from([...set].map((x) => v.ids.get(x)).filter((x): x is number => x !== undefined));
  const m1 = params.model1 ? model1({ qs: qs.map((q) => ids(q, qv)), ts: ts.map((t) => ids(t, tv)), weights: unitWeight, words: qv.words.length, tokens: T }, params.model1) : undefined;
  const table = new Map<string, Array<[string, number]>>();
  qv.words.forEach((q, qi) => {
    const dq = qv.df[qi]!;
    const stem = stemOf(q);
    const scored: Array<[string, number]> = [];
    for (let ti = 0; ti < T; ti++) {
      const c = counts[qi * T + ti]!;
      if (packages[qi * T + ti]! < MIN_PACKAGES) continue;
      const share = tv.df[ti]! / n;
      if (share > MAX_TOKEN_SHARE) continue;
      const p = c / dq;
      const lift = p / share;
      if (lift < MIN_LIFT || p < MIN_P) continue;
      const t = tv.words[ti]!;
      if (t === q || stemOf(t) === stem || STOP_WORDS.has(t)) continue;
      scored.push([t, m1 ? m1[qi * T + ti]! : p * Math.log(lift)]);
    }
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const top = scored.slice(0, params.per);
    if (top.length > 0) table.set(q, top.map(([t, s]) => [t, Number((s / top[0]![1]).toFixed(3))]));
  });
  return table;
}

export function tableText(table: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>): string {
  return [...table].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([q, ts]) => `${q}\t${ts.map(([t, w]) => `${t}:${w}`).join(' ')}\n`).join('');
}

function main(): void {
  const { values } = parseArgs({ options: { data: { type: 'string', default: '/work/train-data/v4' }, out: { type: 'string', default: 'models/expand' }, per: { type: 'string', default: '4' }, lift: { type: 'string' }, p: { type: 'string' }, share: { type: 'string' }, model1: { type: 'string', default: '0' } } });
  if (values.lift) MIN_LIFT = Number(values.lift);
  if (values.p) MIN_P = Number(values.p);
  if (values.share) MAX_TOKEN_SHARE = Number(values.share);
  const all = readPairs(values.data!);
  const train = all.filter((p) => !isValidationPackage(p.pkg));
  const per = Number(values.per);
  const table = buildTable(train, { per, model1: Number(values.model1) });
  const text = tableText(table);
  mkdirSync(values.out!, { recursive: true });
  writeFileSync(join(values.out!, 'terms.tsv'), text);
  const dataManifest = readFileSync(join(values.data!, 'data-manifest.json'));
  const manifest = {
    format: EXPANSION_FORMAT,
    formatVersion: EXPANSION_FORMAT_VERSION,
    files: { 'terms.tsv': createHash('sha256').update(text).digest('hex') },
    data: `scry-pairs-${createHash('sha256').update(dataManifest).digest('hex').slice(0, 16)}`,
    training: { pairs: train.length, minPackages: MIN_PACKAGES, heldOutPackagesExcluded: true, minDf: MIN_DF, minLift: MIN_LIFT, minP: MIN_P, maxTokenShare: MAX_TOKEN_SHARE, per },
    words: table.size,
    command: `npx tsx train/expand-table.ts --data DIR --out ${values.out} --per ${per} --lift ${MIN_LIFT} --p ${MIN_P} --share ${MAX_TOKEN_SHARE}`,
  };
  writeFileSync(join(values.out!, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`${table.size} words, ${text.length} bytes → ${values.out}/terms.tsv\n`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) main();
