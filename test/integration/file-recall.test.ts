/**
 * The model's own file candidates for long queries (issue 18, `search.fusion.filePriorRecall`),
 * with the real shipped model and a real index: a file that shares no word with a long text is
 * outside the lexical pool, so the file prior alone can never list it; with the step on, the files
 * of the model's top chunks join the pool and it is listed, `--explain` saying where it came from.
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

/** Shares no word (nor stem) with LONG: only the model can find it. */
const UNMATCHED = 'redeliver/parcels.ts';

const withFusion = (fusion: Record<string, unknown>): ConfigInput => ({ embed: { provider: 'builtin' }, search: { fusion } }) as ConfigInput;

describe("the model's file candidates", () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (config: ConfigInput): Promise<Engine> => createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config });

  beforeAll(async () => {
    t = tempDir('scry-file-recall-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root, {
      'src/upload/retry.ts': 'export function retryFailedUploads(queue: string[]) {\n  for (const item of queue) sendAgain(item);\n}\n',
      'src/upload/queue.ts': 'export const pending: string[] = [];\nexport function dropQueue() {\n  pending.length = 0;\n}\n',
      [UNMATCHED]: '// resend parcels after disconnect; exponential wait between tries\nexport function transmitParcelsOnceOnline(parcels: Parcel[], socket: Socket) {\n  socket.once("online", () => parcels.forEach((p) => socket.write(p)));\n}\n',
      'src/math/vector.ts': 'export function dot(x: number[], y: number[]) {\n  return x.reduce((s, v, i) => s + v * y[i]!, 0);\n}\n',
    });
    const engine = await open(withFusion({}));
    await engine.index();
    engine.close();
  });
  afterAll(() => t.cleanup());

  it('lists a file with no lexical match only with the step on, and explains it', async () => {
    const lexicalOnly = await open(withFusion({ filePrior: {} }));
    const shipped = await open({ embed: { provider: 'builtin' } } as ConfigInput);
    const recall = await open(withFusion({ filePrior: { long: 0.3 }, filePriorRecall: 50 }));
    try {
      // no lexical match: the lexical list and the shipped prior (which reorders that list) never have it
      const plain = await lexicalOnly.search(LONG, { limit: 20, mode: 'lexical' });
      expect(plain.results.length).toBeGreaterThan(0);
      expect(plain.results.map((r) => r.path)).not.toContain(UNMATCHED);
      const before = await shipped.search(LONG, { limit: 20 });
      expect(before.meta).toMatchObject({ mode: 'hybrid', queryKind: 'long' });
      expect(before.results.map((r) => r.path)).not.toContain(UNMATCHED);
      const r = await recall.search(LONG, { limit: 20, explain: true });
      expect(r.meta).toMatchObject({ mode: 'hybrid', queryKind: 'long' });
      const found = r.results.find((x) => x.path === UNMATCHED);
      expect(found).toBeDefined();
      expect(found!.why).toContain("from the model's file candidates");
      expect(found!.why!.some((w) => /^file prior: model file score [\d.-]+ ×[\d.]+$/.test(w))).toBe(true);
      // the lexical files are all still there, and a recalled file is never listed twice
      for (const p of new Set(plain.results.map((x) => x.path))) expect(r.results.map((x) => x.path)).toContain(p);
      expect(r.results.filter((x) => x.path === UNMATCHED)).toHaveLength(1);
    } finally {
      lexicalOnly.close();
      shipped.close();
      recall.close();
    }
  });
});
