/**
 * The learned ranker end to end (issues 17 and 18): a real index (SQLite, tree-sitter), the real
 * shipped weights (models/ranker/weights.json) and, for hybrid, the real shipped built-in model.
 * `--explain` must show each feature's contribution, adding up to the score the order follows;
 * hybrid must be the score-level blend (no RRF trace); a damaged weights file is MODEL_INVALID.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../src/core/errors.js';
import { loadRankerModel } from '../../src/engine/ranker-model.js';
import { createEngine, type ConfigInput, type Engine, type SearchResult } from '../../src/index.js';
import { FEATURES } from '../../src/search/learned-rank.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

/** The learned ranker; lexical (`embed.provider` none) unless `extra` names a provider. */
const learned = (extra: Record<string, unknown> = {}): ConfigInput => ({ search: { ranking: { learned: true } }, embed: { provider: 'none' }, ...extra }) as ConfigInput;

function checkTrace(r: SearchResult): void {
  expect(r.ranker).toBeDefined();
  const t = r.ranker!;
  const sum = Object.values(t.contributions).reduce((a, b) => a + b, 0);
  expect(sum).toBeCloseTo(t.score, 9);
  expect(Object.keys(t.features)).toEqual([...FEATURES]);
  for (const v of Object.values(t.features)) expect(v >= 0 && v <= 1).toBe(true);
  expect(r.why?.[0]).toMatch(/^learned ranker \((lexical|hybrid|blend)\)/);
}

describe('learned ranker', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (config: ConfigInput, db = 'index.db'): Promise<Engine> => createEngine({ root, db: join(t.dir, db), env: isolatedEnv(t.dir), config });

  beforeAll(async () => {
    t = tempDir('scry-learned-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root, {
      'src/upload/retry.ts': 'export function retryFailedUploads(queue: string[]) {\n  for (const item of queue) sendAgain(item);\n}\n',
      'src/upload/retry.test.ts': "import { retryFailedUploads } from './retry';\ntest('retry failed uploads', () => retryFailedUploads([]));\n",
    });
    const lexical = await open(learned());
    await lexical.index();
    lexical.close();
    const hybrid = await open(learned({ embed: { provider: 'builtin' } }), 'hybrid.db');
    await hybrid.index();
    hybrid.close();
  });
  afterAll(() => t.cleanup());

  it('ranks lexically with the lexical weights, and explains each feature', async () => {
    const engine = await open(learned());
    try {
      const r = await engine.search('retry failed uploads', { explain: true, limit: 5 });
      expect(r.meta.mode).toBe('lexical');
      expect(r.results[0]!.path).toBe('src/upload/retry.ts');
      for (const x of r.results) {
        checkTrace(x);
        expect(x.ranker!.model).toBe('lexical');
        expect(x.ranker!.features.cosine).toBe(0);
      }
      // the order follows the linear score
      const scores = r.results.map((x) => x.ranker!.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      // without explain there is no trace
      const plain = await engine.search('retry failed uploads', { limit: 5 });
      expect(plain.results.map((x) => x.path)).toEqual(r.results.map((x) => x.path));
      expect(plain.results[0]!.ranker).toBeUndefined();
    } finally {
      engine.close();
    }
  });

  it('blends the built-in model at score level in hybrid mode, not by rank fusion', async () => {
    const engine = await open(learned({ embed: { provider: 'builtin' } }), 'hybrid.db');
    try {
      const r = await engine.search('send the queued items again', { explain: true, limit: 5 });
      expect(r.meta.mode).toBe('hybrid');
      expect(r.results.length).toBeGreaterThan(0);
      for (const x of r.results) {
        checkTrace(x);
        expect(x.ranker!.model).toBe('hybrid');
        expect(x.fusion).toBeUndefined();
      }
      expect(r.results.some((x) => (x.ranker!.features.cosine ?? 0) > 0)).toBe(true);
    } finally {
      engine.close();
    }
  });

  it('search.fusion.blend ranks hybrid by lexical + blend × cosine, each over the best, instead of RRF', async () => {
    const config = { embed: { provider: 'builtin' }, search: { fusion: { blend: 0.2 } } } as ConfigInput;
    const engine = await open(config, 'hybrid.db');
    try {
      const r = await engine.search('send the queued items again', { explain: true, limit: 5 });
      expect(r.meta.mode).toBe('hybrid');
      expect(r.results.length).toBeGreaterThan(0);
      for (const x of r.results) {
        checkTrace(x);
        expect(x.ranker!.model).toBe('blend');
        expect(x.fusion).toBeUndefined();
        const f = x.ranker!.features;
        expect(x.ranker!.score).toBeCloseTo((f.lexical ?? 0) + 0.2 * (f.cosineNorm ?? 0), 9);
        expect(Object.keys(x.ranker!.contributions).every((k) => k === 'lexical' || k === 'cosineNorm')).toBe(true);
      }
      expect(r.results[0]!.ranker!.features.lexical === 1 || r.results[0]!.ranker!.features.cosineNorm === 1).toBe(true);
    } finally {
      engine.close();
    }
    // blend 0 is rank fusion: no ranker trace
    const rrf = await open({ embed: { provider: 'builtin' }, search: { fusion: { blend: 0 } } } as ConfigInput, 'hybrid.db');
    try {
      const r = await rrf.search('send the queued items again', { explain: true, limit: 5 });
      expect(r.meta.mode).toBe('hybrid');
      expect(r.results[0]!.ranker).toBeUndefined();
    } finally {
      rrf.close();
    }
  });

  it('search.fusion.blend looks up the cosine of lexical candidates the vector list did not reach', async () => {
    const t2 = tempDir('scry-blend-');
    try {
      const files: Record<string, string> = {};
      const words = ['parse', 'render', 'encode', 'hash', 'sort', 'merge', 'split', 'format', 'cache', 'queue', 'stream', 'buffer'];
      for (let i = 0; i < 24; i++) files[`src/m${i}.ts`] = `export function ${words[i % 12]}Upload${i}(input: string): string {\n  return input${' + "upload"'.repeat(1 + (i % 5))};\n}\n`;
      writeSmallRepo(join(t2.dir, 'repo'), files);
      const config = { embed: { provider: 'builtin' }, search: { fusion: { blend: 0.001, depth: 10 } } } as ConfigInput;
      const engine = await createEngine({ root: join(t2.dir, 'repo'), db: join(t2.dir, 'i.db'), env: isolatedEnv(t2.dir), config });
      try {
        await engine.index();
        // the vector list ranks by other words than the lexical list, so they disagree on the top 10
        const r = await engine.search('lex: upload\nvec: input string return', { explain: true, limit: 10 });
        expect(r.meta.mode).toBe('hybrid');
        expect(r.results.length).toBe(10);
        // every candidate has a vector, so none may score as if its cosine were 0
        for (const x of r.results) expect(x.ranker!.features.cosine).toBeGreaterThan(0);
      } finally {
        engine.close();
      }
    } finally {
      t2.cleanup();
    }
  });

  it('refuses a damaged weights file with MODEL_INVALID', () => {
    const bad = join(t.dir, 'weights.json');
    writeFileSync(bad, JSON.stringify({ version: 1, lexical: { lexical: 'high' }, hybrid: {}, diversity: { cap: 0, within: 0 } }));
    expect(() => loadRankerModel(bad)).toThrow(EngineError);
    try {
      loadRankerModel(bad);
    } catch (err) {
      expect((err as EngineError).code).toBe('MODEL_INVALID');
    }
    writeFileSync(join(t.dir, 'truncated.json'), '{"version": 1, "lexical": {');
    expect(() => loadRankerModel(join(t.dir, 'truncated.json'))).toThrow(/ranker/);
  });
});
