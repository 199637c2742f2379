/**
 * Held-out retrieval of builtin models (issue 17), CodeSearchNet's protocol (train/heldout.ts):
 * every description of the held-out test half ranks its own code unit among 1,000 candidates,
 * MRR@10. Reports BM25 on the same units and tokens; for each model directory given (as shipped:
 * int8, loaded by src/embed/builtin/model.ts) the model alone, its reciprocal-rank fusion with BM25
 * and its score blend (z(BM25) + w·z(cosine), w tuned on the tuning half); all per language; and
 * optionally USE-lite (`--use-lite 1`, slow).
 *
 *   nice -n 10 npx tsx train/evaluate.ts --data /work/train-data [--models models/builtin,DIR2] [--use-lite 1]
 */
import { parseArgs } from 'node:util';
import { loadBuiltinModel } from '../src/embed/builtin/model.js';
import { createUseLiteProvider } from '../src/embed/use-lite-provider.js';
import type { PairRecord } from './harvest.js';
import type { EvalSet } from './heldout.js';
import { bestBlendWeight, codeText, cosineMatrix, evalSet, heldOutHalf, isValidationPackage, mean, reciprocalRanks } from './heldout.js';
import { readPairs } from './train.js';

type Report = Record<string, number>;

/** Mean of `rr` overall and per language of the set's pairs. */
function perLanguage(set: EvalSet, rr: Float32Array): Report {
  const out: Report = { all: round(mean(rr)) };
  const by = new Map<string, number[]>();
  set.pairs.forEach((p, i) => by.set(p.language, [...(by.get(p.language) ?? []), rr[i]!]));
  for (const [lang, xs] of [...by].sort()) out[lang] = round(mean(xs));
  return out;
}

const round = (x: number): number => Number(x.toFixed(4));

/** Reciprocal ranks of reciprocal-rank fusion (k 60, equal weights) of BM25 and `dense`, by re-scoring each candidate window. */
function rrfRanks(set: EvalSet, dense: Float32Array): Float32Array {
  const n = set.pairs.length;
  const fused = new Float32Array(n * n);
  const m = Math.min(1000, n);
  for (let q = 0; q < n; q++) {
    const cands = Array.from({ length: m }, (_, k) => set.order[(set.at[q]! + k) % n]!);
    for (const s of [set.bm25, dense]) {
      const sorted = [...cands].sort((a, b) => s[q * n + b]! - s[q * n + a]! || a - b);
      sorted.forEach((c, rank) => (fused[q * n + c]! += 1 / (60 + rank + 1)));
    }
  }
  return reciprocalRanks({ ...set, bm25: fused }, undefined, 1, 0);
}

async function denseOf(dir: string | undefined, pairs: readonly PairRecord[]): Promise<{ dense: Float32Array; chunksPerSec: number }> {
  const model = await loadBuiltinModel(dir);
  const t0 = performance.now();
  const cv = pairs.map((p) => model.embed(codeText(p), 'document'));
  const secs = (performance.now() - t0) / 1000;
  const qv = pairs.map((p) => model.embed(p.description, 'query'));
  return { dense: cosineMatrix(qv, cv), chunksPerSec: Math.round(pairs.length / secs) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string', default: '/work/train-data' }, models: { type: 'string', default: '' }, 'use-lite': { type: 'string', default: '0' } } });
  const held = readPairs(values.data!).filter((p) => isValidationPackage(p.pkg));
  const tune = evalSet(held.filter((p) => heldOutHalf(p.pkg) === 'tune'));
  const test = evalSet(held.filter((p) => heldOutHalf(p.pkg) === 'test'));
  const langs = new Map<string, number>();
  for (const p of test.pairs) langs.set(p.language, (langs.get(p.language) ?? 0) + 1);
  const result: Record<string, unknown> = {
    protocol: 'held-out test half, each description vs 1,000 candidates, MRR@10 (train/heldout.ts)',
    testPairs: test.pairs.length, testPackages: new Set(test.pairs.map((p) => p.pkg)).size, tunePairs: tune.pairs.length, languages: Object.fromEntries(langs),
    bm25: perLanguage(test, reciprocalRanks(test, undefined, 1, 0)),
  };
  for (const dir of values.models!.split(',').filter(Boolean)) {
    const { w, mrr: tuneBlend } = bestBlendWeight(tune, (await denseOf(dir, tune.pairs)).dense);
    const { dense, chunksPerSec } = await denseOf(dir, test.pairs);
    result[dir] = {
      model: perLanguage(test, reciprocalRanks(test, dense, 0, 1)), rrf: perLanguage(test, rrfRanks(test, dense)),
      blendWeight: w, tuneBlend: round(tuneBlend), blend: perLanguage(test, reciprocalRanks(test, dense, 1, w)), codeEmbedPerSec: chunksPerSec,
    };
  }
  if (Number(values['use-lite']) > 0) {
    const provider = createUseLiteProvider({ batchSize: 64 });
    const embedAll = async (pairs: readonly PairRecord[]): Promise<Float32Array> =>
      cosineMatrix(await provider.embed(pairs.map((p) => p.description)), await provider.embed(pairs.map((p) => codeText(p).slice(0, 6000))));
    const w = bestBlendWeight(tune, await embedAll(tune.pairs)).w;
    const dense = await embedAll(test.pairs);
    await provider.close();
    result['useLite'] = { model: perLanguage(test, reciprocalRanks(test, dense, 0, 1)), rrf: perLanguage(test, rrfRanks(test, dense)), blendWeight: w, blend: perLanguage(test, reciprocalRanks(test, dense, 1, w)) };
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
