/**
 * The model's file prior for long queries (issue 18, `search.fusion.filePrior`), with the real
 * shipped model and a real index: a long query is embedded and its lexical chunks reordered by file
 * (meta `hybrid`, `--explain` names the step); every chunk of a file is multiplied by one factor, so
 * the chunks of each file keep their lexical order; a kind's per-file cap still holds after it; it
 * is the default for long queries, and `filePrior: {}` ranks them lexically again.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const LONG = [
  'Uploads are lost when the network drops',
  '',
  'When the connection resets halfway through a batch, the failed uploads are never retried and the pending queue is dropped.',
  '',
  'Expected: each failed upload is sent again with a backoff until the queue is empty.',
].join('\n');

const withPrior = (fusion: Record<string, unknown>): ConfigInput => ({ embed: { provider: 'builtin' }, search: { fusion } }) as ConfigInput;

describe('file prior', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (config: ConfigInput): Promise<Engine> => createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config });

  beforeAll(async () => {
    t = tempDir('scry-file-prior-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root, {
      'src/upload/retry.ts': 'export function retryFailedUploads(queue: string[]) {\n  for (const item of queue) sendAgain(item);\n}\n\nexport function backoffDelay(attempt: number) {\n  return 2 ** attempt * 100;\n}\n',
      'src/upload/queue.ts': 'export const pending: string[] = [];\nexport function enqueue(item: string) {\n  pending.push(item);\n}\n\nexport function dropQueue() {\n  pending.length = 0;\n}\n',
      // three large functions (three chunks) of one file about the report: a per-file cap has something to cap
      'src/upload/sender.ts': ['resendFailedUploads', 'retryUploadBatch', 'flushPendingQueue']
        .map((name) => `export function ${name}(queue: string[]) {\n${Array.from({ length: 30 }, (_, i) => `  if (connectionReset(${i})) queue.forEach((upload) => retryUpload(upload, backoff(${i}))); // failed uploads retried after a reset`).join('\n')}\n}\n`)
        .join('\n'),
      'src/net/connection.ts': 'export function onReset(handler: () => void) {\n  socket.on("reset", handler);\n}\n',
    });
    const engine = await open(withPrior({}));
    await engine.index();
    engine.close();
  });
  afterAll(() => t.cleanup());

  it('is on by default for long queries, and `filePrior: {}` turns it off (ranked lexically, not embedded)', async () => {
    const shipped = await open({ embed: { provider: 'builtin' } } as ConfigInput);
    try {
      const r = await shipped.search(LONG, { limit: 10, explain: true });
      expect(r.meta).toMatchObject({ mode: 'hybrid', queryKind: 'long' });
      expect(r.results[0]!.why!.some((w) => w.startsWith('file prior: model file score'))).toBe(true);
    } finally {
      shipped.close();
    }
    const engine = await open(withPrior({ filePrior: {} }));
    try {
      const r = await engine.search(LONG, { limit: 10 });
      expect(r.meta).toMatchObject({ mode: 'lexical', queryKind: 'long' });
      expect(r.meta.embedMs).toBeUndefined();
    } finally {
      engine.close();
    }
  });

  it('reorders files by the model, keeps each file\'s chunks in lexical order, and explains the step', async () => {
    const engine = await open(withPrior({ filePrior: { long: 0.9 }, filePriorPieces: 'mean' }));
    const lexical = await open(withPrior({ filePrior: {} }));
    try {
      const r = await engine.search(LONG, { limit: 10, explain: true });
      expect(r.meta).toMatchObject({ mode: 'hybrid', queryKind: 'long' });
      expect(r.meta.embedMs).toBeGreaterThanOrEqual(0);
      const plain = await lexical.search(LONG, { limit: 10, mode: 'lexical' });
      // the same chunks (the pool is larger than the page), each file's in the same order
      expect(new Set(r.results.map((x) => `${x.path}:${x.startLine}`))).toEqual(new Set(plain.results.map((x) => `${x.path}:${x.startLine}`)));
      for (const path of new Set(plain.results.map((x) => x.path))) {
        expect(r.results.filter((x) => x.path === path).map((x) => x.startLine)).toEqual(plain.results.filter((x) => x.path === path).map((x) => x.startLine));
      }
      for (const hit of r.results) expect(hit.why!.some((w) => /^file prior: model file score [\d.]+ ×[\d.]+$/.test(w))).toBe(true);
      // at weight 0.9 the file the model likes least counts ×0.1: some chunk's score changed
      const scoreOf = new Map(plain.results.map((x) => [`${x.path}:${x.startLine}`, x.score]));
      expect(r.results.some((x) => x.score < scoreOf.get(`${x.path}:${x.startLine}`)! * 0.2)).toBe(true);
      // a kind's per-file cap is an order: it holds after the prior reordered the files
      const capped = await open({ ...withPrior({ filePrior: { long: 0.9 } }), search: { fusion: { filePrior: { long: 0.9 } }, ranking: { byKind: { long: { fileCap: 1 } } } } } as ConfigInput);
      try {
        const c = await capped.search(LONG, { limit: 10 });
        const firstFiles = c.results.slice(0, new Set(c.results.map((x) => x.path)).size).map((x) => x.path);
        expect(new Set(firstFiles).size).toBe(firstFiles.length);
      } finally {
        capped.close();
      }
      // a natural-language question is still the blend's
      const natural = await engine.search('send the queued items again', { limit: 5, explain: true });
      expect(natural.results[0]!.ranker?.model).toBe('blend');
    } finally {
      engine.close();
      lexical.close();
    }
  });
});
