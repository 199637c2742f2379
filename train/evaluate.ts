/**
 * Held-out retrieval of the shipped builtin model (issue 17), CodeSearchNet's protocol: every
 * held-out description ranks its own code unit among 1,000 (its group's), MRR@10. Compares BM25 on
 * the same units and tokens, the model as shipped (int8, loaded by src/embed/builtin/model.ts),
 * their reciprocal-rank fusion, and optionally USE-lite (`--use-lite N`: its first N groups only,
 * it is slow).
 *
 *   nice -n 10 npx tsx train/evaluate.ts --data /work/train-data [--use-lite 1]
 */
import { parseArgs } from 'node:util';
import { loadBuiltinModel } from '../src/embed/builtin/model.js';
import { tokenCounts } from '../src/embed/builtin/tokenize.js';
import { createUseLiteProvider } from '../src/embed/use-lite-provider.js';
import { rng } from './nbow.js';
import { codeText, isValidationPackage, mrrAt10, readPairs } from './train.js';

const GROUP = 1000;

function bm25Scores(queries: Map<string, number>[], docs: Map<string, number>[], df: Map<string, number>, n: number): (idx: number[]) => Float32Array {
  const avg = docs.reduce((s, d) => s + [...d.values()].reduce((a, b) => a + b, 0), 0) / docs.length;
  const k1 = 1.2, b = 0.75;
  return (idx) => {
    const out = new Float32Array(idx.length * idx.length);
    idx.forEach((qi, a) => {
      idx.forEach((di, c) => {
        const d = docs[di]!;
        const len = [...d.values()].reduce((x, y) => x + y, 0);
        let s = 0;
        for (const t of queries[qi]!.keys()) {
          const tf = d.get(t);
          if (!tf) continue;
          const idf = Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
          s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg));
        }
        out[a * idx.length + c] = s;
      });
    });
    return out;
  };
}

function dense(qv: Float32Array[], cv: Float32Array[]): (idx: number[]) => Float32Array {
  return (idx) => {
    const out = new Float32Array(idx.length * idx.length);
    idx.forEach((qi, a) => idx.forEach((ci, c) => {
      let s = 0;
      const x = qv[qi]!, y = cv[ci]!;
      for (let j = 0; j < x.length; j++) s += x[j]! * y[j]!;
      out[a * idx.length + c] = s;
    }));
    return out;
  };
}

/** Reciprocal-rank fusion (k = 60) of two score matrices, weights per list. */
function rrf(a: (idx: number[]) => Float32Array, b: (idx: number[]) => Float32Array, wa: number, wb: number): (idx: number[]) => Float32Array {
  return (idx) => {
    const n = idx.length;
    const sa = a(idx), sb = b(idx);
    const out = new Float32Array(n * n);
    for (let q = 0; q < n; q++) {
      for (const [s, w] of [[sa, wa], [sb, wb]] as const) {
        const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => s[q * n + y]! - s[q * n + x]! || x - y);
        order.forEach((doc, rank) => (out[q * n + doc]! += w / (60 + rank + 1)));
      }
    }
    return out;
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string', default: '/work/train-data' }, model: { type: 'string' }, 'use-lite': { type: 'string', default: '0' } } });
  const valid = readPairs(values.data!).filter((p) => isValidationPackage(p.pkg));
  const vr = rng(7);
  for (let i = valid.length - 1; i > 0; i--) {
    const j = Math.floor(vr() * (i + 1));
    [valid[i], valid[j]] = [valid[j]!, valid[i]!];
  }
  const n = Math.floor(valid.length / GROUP) * GROUP;
  const pairs = valid.slice(0, n);
  const langs = new Map<string, number>();
  for (const p of pairs) langs.set(p.language, (langs.get(p.language) ?? 0) + 1);
  const model = await loadBuiltinModel(values.model);
  const t0 = performance.now();
  const cv = pairs.map((p) => model.embed(codeText(p), 'document'));
  const t1 = performance.now();
  const qv = pairs.map((p) => model.embed(p.description, 'query'));
  const t2 = performance.now();
  const qTok = pairs.map((p) => tokenCounts(p.description));
  const cTok = pairs.map((p) => tokenCounts(codeText(p)));
  const df = new Map<string, number>();
  for (const d of cTok) for (const t of d.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const bm25 = bm25Scores(qTok, cTok, df, cTok.length);
  const nbow = dense(qv, cv);
  const result: Record<string, unknown> = {
    heldOutPairs: n, packages: new Set(pairs.map((p) => p.pkg)).size, languages: Object.fromEntries(langs),
    bm25: mrrAt10(bm25, n), builtin: mrrAt10(nbow, n), rrf: mrrAt10(rrf(bm25, nbow, 1, 1), n), rrfVector05: mrrAt10(rrf(bm25, nbow, 1, 0.5), n),
    codeEmbedPerSec: Math.round(n / ((t1 - t0) / 1000)), queryEmbedMeanMs: Number(((t2 - t1) / n).toFixed(4)),
  };
  const useLiteGroups = Number(values['use-lite']);
  if (useLiteGroups > 0) {
    const m = useLiteGroups * GROUP;
    const provider = createUseLiteProvider({ batchSize: 64 });
    const uq = await provider.embed(pairs.slice(0, m).map((p) => p.description));
    const uc = await provider.embed(pairs.slice(0, m).map((p) => codeText(p).slice(0, 6000)));
    await provider.close();
    result['subset'] = { pairs: m, bm25: mrrAt10(bm25, m), builtin: mrrAt10(nbow, m), useLite: mrrAt10(dense(uq, uc), m), rrfUseLite: mrrAt10(rrf(bm25, dense(uq, uc), 1, 1), m) };
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
