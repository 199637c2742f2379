/**
 * Query-kind gating of the vector blend (issue 17), with the real shipped model: with
 * `search.fusion.blend` on, in auto mode, natural-language questions are blended and identifier
 * and path queries are ranked exactly as lexical search ranks them (long ones get the model's file
 * prior instead, issue 18); an explicit hybrid
 * request is blended whatever its kind; `blendByKind` moves the gate. It is the default (builtin
 * provider, blend 0.3), and a gated query is not embedded.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const hybrid = (fusion: Record<string, unknown>): ConfigInput => ({ embed: { provider: 'builtin' }, search: { fusion } }) as ConfigInput;
const LONG = 'Uploads are lost when the network drops\n\nWhen the connection resets halfway, retryFailedUploads is never called and the queue is dropped.';

describe('blend gate', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (config: ConfigInput): Promise<Engine> => createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config });

  beforeAll(async () => {
    t = tempDir('scry-gate-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root, {
      'src/upload/retry.ts': 'export function retryFailedUploads(queue: string[]) {\n  for (const item of queue) sendAgain(item);\n}\n',
      'src/upload/queue.ts': 'export const pending: string[] = [];\nexport function enqueue(item: string) {\n  pending.push(item);\n}\n',
    });
    const engine = await open(hybrid({ blend: 0.3 }));
    await engine.index();
    engine.close();
  });
  afterAll(() => t.cleanup());

  it('blends natural-language questions and ranks the other kinds lexically, in the same order as lexical search', async () => {
    const gated = await open(hybrid({ blend: 0.3 }));
    const lexical = await open(hybrid({ blend: 0.3 }));
    try {
      const natural = await gated.search('send the queued items again', { limit: 5, explain: true });
      expect(natural.meta).toMatchObject({ mode: 'hybrid', queryKind: 'natural' });
      expect(natural.results[0]!.ranker?.model).toBe('blend');
      expect(natural.meta.embedMs).toBeGreaterThanOrEqual(0);
      // without explain the blend reads no candidate text but its results': the same ranking
      const quiet = await gated.search('send the queued items again', { limit: 5 });
      expect(quiet.results.map((x) => [x.path, x.startLine, x.score, x.snippet])).toEqual(natural.results.map((x) => [x.path, x.startLine, x.score, x.snippet]));
      for (const [query, kind] of [['retryFailedUploads', 'identifier'], ['src/upload/retry.ts', 'path']] as const) {
        const r = await gated.search(query, { limit: 5 });
        expect(r.meta.queryKind).toBe(kind);
        expect(r.meta.mode).toBe('lexical');
        expect(r.meta.semantic).toBe(`lexical: ${kind} query (the vector blend is for natural queries)`);
        // a gated query is not embedded: the model is never loaded for it
        expect(r.meta.embedMs).toBeUndefined();
        const plain = await lexical.search(query, { limit: 5, mode: 'lexical' });
        expect(r.results.map((x) => [x.path, x.startLine, x.score])).toEqual(plain.results.map((x) => [x.path, x.startLine, x.score]));
      }
      // a long query is not blended either: its lexical ranking is reordered by file (the file prior, file-prior.test.ts)
      const long = await gated.search(LONG, { limit: 5, explain: true });
      expect(long.meta).toMatchObject({ mode: 'hybrid', queryKind: 'long' });
      expect(long.results[0]!.ranker).toBeUndefined();
      expect(long.results[0]!.why!.some((w) => w.startsWith('file prior: '))).toBe(true);
    } finally {
      gated.close();
      lexical.close();
    }
  });

  it('is the default: with no config, the index has the built-in model\'s vectors and natural questions are blended at 0.3', async () => {
    const d = tempDir('scry-gate-default-');
    const engine = await createEngine({ root, db: join(d.dir, 'index.db'), env: isolatedEnv(d.dir) });
    try {
      const report = await engine.index();
      expect(report.embedding).toMatchObject({ embedded: expect.any(Number) as number });
      expect(engine.status().embeddings).toMatchObject({ provider: 'builtin', pending: 0 });
      const natural = await engine.search('send the queued items again', { limit: 5, explain: true });
      expect(natural.meta).toMatchObject({ mode: 'hybrid', queryKind: 'natural' });
      expect(natural.results[0]!.ranker!.score).toBeCloseTo((natural.results[0]!.ranker!.features.lexical ?? 0) + 0.3 * (natural.results[0]!.ranker!.features.cosineNorm ?? 0), 9);
      const ident = await engine.search('retryFailedUploads', { limit: 5 });
      expect(ident.meta).toMatchObject({ mode: 'lexical', semantic: 'lexical: identifier query (the vector blend is for natural queries)' });
      // a query of vector lines only has nothing to blend with: rank fusion answers it (was QUERY_EMPTY)
      const vecOnly = await engine.search('vec: send the queued items again', { limit: 5 });
      expect(vecOnly.meta.mode).toBe('hybrid');
      expect(vecOnly.results.length).toBeGreaterThan(0);
    } finally {
      engine.close();
      d.cleanup();
    }
  });

  it('gates auto mode only: an explicit hybrid request of an identifier is blended', async () => {
    const engine = await open(hybrid({ blend: 0.3 }));
    try {
      const r = await engine.search('retryFailedUploads', { limit: 5, mode: 'hybrid', explain: true });
      expect(r.meta.mode).toBe('hybrid');
      expect(r.results[0]!.ranker?.model).toBe('blend');
      // lexical + blend × cosine + blendNames (default 0.5) × the name match: `retryFailedUploads` names its own definition
      const f = r.results[0]!.ranker!.features;
      expect(f.nameMatch).toBe(1);
      expect(r.results[0]!.ranker!.score).toBeCloseTo((f.lexical ?? 0) + 0.3 * (f.cosineNorm ?? 0) + 0.5 * (f.nameMatch ?? 0), 9);
    } finally {
      engine.close();
    }
  });

  it('blendByKind opens the gate for a kind, or closes it for natural language', async () => {
    const open1 = await open(hybrid({ blend: 0.3, blendByKind: { identifier: 0.3 } }));
    const closed = await open(hybrid({ blend: 0.3, blendByKind: { natural: 0, identifier: 0.5 } }));
    try {
      expect((await open1.search('retryFailedUploads', { limit: 5 })).meta.mode).toBe('hybrid');
      const r = await closed.search('send the queued items again', { limit: 5 });
      expect(r.meta.mode).toBe('lexical');
      expect(r.meta.semantic).toBe('lexical: natural query (the vector blend is for identifier queries)');
    } finally {
      open1.close();
      closed.close();
    }
  });
});
