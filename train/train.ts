/**
 * Trains the builtin embedding model (issue 17) on the pairs train/harvest.ts wrote, and writes the
 * shipped artifact (manifest.json, weights.bin, vocab.txt) to `--model`.
 *
 *   nice -n 10 npx tsx train/train.ts --data /work/train-data --model models/builtin
 *
 * Whole packages are held out for validation (sha256 of the package name, 1 in 16); the held-out
 * MRR@10 over groups of 1,000 (CodeSearchNet's protocol) is printed after every epoch. Batches mix
 * groups of pairs from one package, so in-batch negatives include hard ones from the same code base.
 * Deterministic for a given corpus and seed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { encodeWeights, MODEL_FORMAT, MODEL_FORMAT_VERSION } from '../src/embed/builtin/format.js';
import { BUILTIN_MODEL_NAME } from '../src/embed/builtin/model.js';
import type { Features } from '../src/embed/builtin/tokenize.js';
import { featurize, tokenCounts, TOKENIZER_VERSION } from '../src/embed/builtin/tokenize.js';
import type { PairRecord } from './harvest.js';
import { createTrainer, encode, initParams, rng } from './nbow.js';
import type { NbowParams } from './nbow.js';

export const sha = (s: string | Uint8Array): string => createHash('sha256').update(s).digest('hex');

/** 1 package in 16 is held out, by the hash of its name. */
export const isValidationPackage = (pkg: string): boolean => parseInt(sha(pkg).slice(0, 2), 16) % 16 === 0;

/** The text a code unit is embedded as, the same shape as the index's embeddingText: path and name, then the code. */
export function codeText(p: Pick<PairRecord, 'path' | 'symbol' | 'container' | 'code'>): string {
  return `${p.path} ${p.container ? `${p.container}.` : ''}${p.symbol}\n${p.code}`;
}

export function readPairs(dataDir: string): PairRecord[] {
  return readFileSync(join(dataDir, 'pairs.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as PairRecord);
}

/** The `size` tokens most documents hold (queries and code both), with document frequency ≥ minDf. */
function buildVocab(pairs: readonly PairRecord[], size: number, minDf: number): { tokens: string[]; df: Map<string, number> } {
  const df = new Map<string, number>();
  for (const p of pairs) {
    for (const t of new Set([...tokenCounts(p.description).keys(), ...tokenCounts(codeText(p)).keys()])) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const tokens = [...df].filter(([, n]) => n >= minDf).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, size).map(([t]) => t);
  return { tokens, df };
}

/** MRR@10 of queries against their own code among groups of `group` (each query's 999 distractors are its group's other units). */
export function mrrAt10(scoreGroup: (qs: number[]) => Float32Array, n: number, group = 1000): number {
  let sum = 0;
  let count = 0;
  for (let start = 0; start + group <= n; start += group) {
    const idx = Array.from({ length: group }, (_, i) => start + i);
    const scores = scoreGroup(idx); // group × group, row = query
    for (let i = 0; i < group; i++) {
      const own = scores[i * group + i]!;
      let rank = 1;
      for (let k = 0; k < group; k++) if (k !== i && scores[i * group + k]! > own) rank++;
      if (rank <= 10) sum += 1 / rank;
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

function modelScores(p: NbowParams, qf: readonly Features[], cf: readonly Features[]): (idx: number[]) => Float32Array {
  return (idx) => {
    const d = p.dims;
    const uq = idx.map((i) => encodeTo(p, qf[i]!, 'q'));
    const uc = idx.map((i) => encodeTo(p, cf[i]!, 'c'));
    const out = new Float32Array(idx.length * idx.length);
    for (let a = 0; a < idx.length; a++) for (let b = 0; b < idx.length; b++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += uq[a]![j]! * uc[b]![j]!;
      out[a * idx.length + b] = s;
    }
    return out;
  };
}

function encodeTo(p: NbowParams, f: Features, side: 'q' | 'c'): Float32Array {
  const v = new Float32Array(p.dims);
  encode(p, f, side, v);
  return v;
}

/** Batches of `batch` pairs made of groups of `group` pairs from one package, shuffled by `rand`. */
function makeBatches(byPkg: Map<string, number[]>, batch: number, group: number, rand: () => number): number[][] {
  const shuffle = <T>(a: T[]): T[] => {
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  const groups: number[][] = [];
  for (const ids of byPkg.values()) {
    const s = shuffle([...ids]);
    for (let i = 0; i < s.length; i += group) groups.push(s.slice(i, i + group));
  }
  const flat = shuffle(groups).flat();
  const out: number[][] = [];
  for (let i = 0; i + batch <= flat.length; i += batch) out.push(flat.slice(i, i + batch));
  return out;
}

/** `f` with each token dropped with probability `p` (at least one kept): a regulariser. */
function dropTokens(f: Features, p: number, rand: () => number): Features {
  if (p <= 0 || f.ids.length <= 1) return f;
  const keep: number[] = [];
  for (let k = 0; k < f.ids.length; k++) if (rand() >= p) keep.push(k);
  if (keep.length === 0) keep.push(Math.floor(rand() * f.ids.length));
  return { ids: Int32Array.from(keep, (k) => f.ids[k]!), tf: Float32Array.from(keep, (k) => f.tf[k]!) };
}

function quantize(p: NbowParams): { vectors: Int8Array; scales: Float32Array } {
  const vectors = new Int8Array(p.rows * p.dims);
  const scales = new Float32Array(p.rows);
  for (let r = 0; r < p.rows; r++) {
    let max = 0;
    for (let j = 0; j < p.dims; j++) max = Math.max(max, Math.abs(p.table[r * p.dims + j]!));
    const s = max / 127 || 1;
    scales[r] = s;
    for (let j = 0; j < p.dims; j++) vectors[r * p.dims + j] = Math.round(p.table[r * p.dims + j]! / s);
  }
  return { vectors, scales };
}

/** Writes weights.bin, vocab.txt and manifest.json of `params` (int8 rows); returns the bytes of the two data files. */
function writeArtifact(dir: string, params: NbowParams, tokens: readonly string[], buckets: number, data: { id: string }, extra: Record<string, unknown>): number {
  const { vectors, scales } = quantize(params);
  const weights = encodeWeights({ rows: params.rows, dims: params.dims, vectors, scales, queryWeights: params.logWq.map(Math.exp), codeWeights: params.logWc.map(Math.exp) });
  const vocabText = `${tokens.join('\n')}\n`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'weights.bin'), weights);
  writeFileSync(join(dir, 'vocab.txt'), vocabText);
  const manifest = {
    format: MODEL_FORMAT, formatVersion: MODEL_FORMAT_VERSION, name: BUILTIN_MODEL_NAME,
    dimensions: params.dims, vocabSize: tokens.length, hashBuckets: buckets, tokenizer: TOKENIZER_VERSION,
    files: { 'weights.bin': sha(weights), 'vocab.txt': sha(vocabText) },
    data: data.id,
    ...extra,
  };
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return weights.byteLength + Buffer.byteLength(vocabText);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: '/work/train-data' }, model: { type: 'string', default: 'models/builtin' },
      vocab: { type: 'string', default: '20000' }, buckets: { type: 'string', default: '2048' }, dims: { type: 'string', default: '64' },
      epochs: { type: 'string', default: '8' }, batch: { type: 'string', default: '256' }, group: { type: 'string', default: '8' },
      lr: { type: 'string', default: '0.05' }, scale: { type: 'string', default: '20' }, seed: { type: 'string', default: '17' },
      dropout: { type: 'string', default: '0' },
    },
  });
  const num = (k: keyof typeof values): number => Number(values[k]);
  const all = readPairs(values.data!);
  const train = all.filter((p) => !isValidationPackage(p.pkg));
  const valid = all.filter((p) => isValidationPackage(p.pkg));
  // Shuffle validation so each 1,000-group mixes packages (deterministic).
  const vr = rng(7);
  for (let i = valid.length - 1; i > 0; i--) {
    const j = Math.floor(vr() * (i + 1));
    [valid[i], valid[j]] = [valid[j]!, valid[i]!];
  }
  const { tokens, df } = buildVocab(train, num('vocab'), 3);
  const vocab = new Map(tokens.map((t, i) => [t, i]));
  const buckets = num('buckets');
  const dims = num('dims');
  const rows = tokens.length + buckets;
  const idf = new Float32Array(rows).fill(Math.log(train.length / 3));
  tokens.forEach((t, i) => (idf[i] = Math.log(train.length / (df.get(t) ?? 1))));
  const feats = (ps: readonly PairRecord[]) => ({ q: ps.map((p) => featurize(p.description, vocab, buckets)), c: ps.map((p) => featurize(codeText(p), vocab, buckets)) });
  const tr = feats(train);
  const va = feats(valid);
  process.stderr.write(`${train.length} training pairs, ${valid.length} held-out pairs (${new Set(valid.map((p) => p.pkg)).size} packages), vocab ${tokens.length} + ${buckets} buckets × ${dims}\n`);
  const params = initParams(rows, dims, idf, num('seed'));
  const trainer = createTrainer(params, { lr: num('lr'), lrWeights: num('lr'), scale: num('scale') });
  const byPkg = new Map<string, number[]>();
  train.forEach((p, i) => byPkg.set(p.pkg, [...(byPkg.get(p.pkg) ?? []), i]));
  const rand = rng(num('seed'));
  let best = { mrr: -1, epoch: 0, table: params.table.slice(), wq: params.logWq.slice(), wc: params.logWc.slice() };
  for (let epoch = 1; epoch <= num('epochs'); epoch++) {
    let loss = 0;
    const batches = makeBatches(byPkg, num('batch'), num('group'), rand);
    const drop = num('dropout');
    for (const b of batches) loss += trainer.step(b.map((i) => dropTokens(tr.q[i]!, drop, rand)), b.map((i) => dropTokens(tr.c[i]!, drop, rand)));
    const mrr = mrrAt10(modelScores(params, va.q, va.c), valid.length);
    process.stderr.write(`epoch ${epoch}: loss ${(loss / batches.length).toFixed(4)}, held-out MRR@10 ${mrr.toFixed(4)}\n`);
    if (mrr > best.mrr) best = { mrr, epoch, table: params.table.slice(), wq: params.logWq.slice(), wc: params.logWc.slice() };
  }
  params.table.set(best.table);
  params.logWq.set(best.wq);
  params.logWc.set(best.wc);
  const bytes = writeArtifact(values.model!, params, tokens, buckets, JSON.parse(readFileSync(join(values.data!, 'data-manifest.json'), 'utf8')) as { id: string }, {
    training: { pairs: train.length, dropout: num('dropout'), heldOutPairs: valid.length, epochs: num('epochs'), bestEpoch: best.epoch, batch: num('batch'), group: num('group'), lr: num('lr'), scale: num('scale'), seed: num('seed') },
    metrics: { heldOutMrr10Float32: Number(best.mrr.toFixed(4)) },
  });
  process.stderr.write(`best epoch ${best.epoch} (MRR@10 ${best.mrr.toFixed(4)}); wrote ${values.model} (${bytes} bytes)\n`);
}

if (process.argv[1]?.endsWith('train.ts')) await main();
