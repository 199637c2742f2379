/**
 * Issue 16, defect 4: one response reads one database version. A writer process rewrites every
 * file to generation g and indexes it (one write transaction per generation), over and over,
 * while this process searches in a loop. Every result of one response must name the same
 * generation: a response mixing two (or a result whose text vanished with the generation it was
 * found in) read several versions. Loops are bounded by counts, not time.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { startScript } from '../helpers/cli.js';
import { generationsIn, writeGenerationFiles } from '../helpers/generations.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const WRITER = fileURLToPath(new URL('../helpers/generation-writer.ts', import.meta.url));
const FILES = 40;
const GENERATIONS = 40;
/** An upper bound on reader iterations, far above what the writer's run takes. */
const MAX_ROUNDS = 20_000;

interface Tally {
  responses: number;
  mixed: string[];
  seen: Set<number>;
}

function check(tally: Tally, what: string, texts: readonly string[]): void {
  tally.responses++;
  const gens = new Set<number>();
  let blank = 0;
  for (const t of texts) {
    const g = generationsIn(t);
    if (g.size === 0) blank++;
    for (const x of g) gens.add(x);
  }
  for (const g of gens) tally.seen.add(g);
  if (gens.size > 1 || blank > 0) tally.mixed.push(`${what}: generations ${[...gens].join(',')}, ${blank} of ${texts.length} without one`);
}

describe('a response reads one snapshot', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine | undefined;
  beforeEach(() => {
    t = tempDir('scry-snapshot-');
  });
  afterEach(() => {
    engine?.close();
    t.cleanup();
  });

  it('search, text search and listings under a writer process never mix generations', async () => {
    const root = join(t.dir, 'repo');
    const db = join(t.dir, 'index.db');
    const env = isolatedEnv(t.dir);
    writeGenerationFiles(root, 0, FILES);
    const first = await createEngine({ root, db, env });
    await first.index();
    first.close();

    const writer = startScript(WRITER, [root, db, String(FILES), String(GENERATIONS)], { cwd: root, env });
    let written = 0;
    let stderr = '';
    writer.stdout!.on('data', (c: Buffer) => (written = Math.max(written, ...c.toString().trim().split('\n').map(Number))));
    writer.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => writer.once('exit', (code) => r(code)));
    let done = false;
    void exited.then(() => (done = true));

    engine = await createEngine({ root, db, env });
    const tally: Tally = { responses: 0, mixed: [], seen: new Set() };
    const during = new Set<number>();
    for (let round = 0; round < MAX_ROUNDS && !done; round++) {
      const lexical = await engine.search('zebra', { limit: FILES, mode: 'lexical', rerank: false });
      check(tally, `search ${round}`, lexical.results.map((r) => r.snippet));
      const text = await engine.searchText('gen_', { limit: FILES * 12 });
      check(tally, `search_text ${round}`, text.matches.map((m) => m.text));
      if (written > 0 && written < GENERATIONS) for (const g of tally.seen) during.add(g);
      await new Promise((r) => setImmediate(r));
    }
    expect(await exited, stderr).toBe(0);
    expect(written).toBe(GENERATIONS);
    // the reader really ran alongside the writer: it saw several generations come and go
    expect(during.size).toBeGreaterThanOrEqual(3);
    expect(tally.mixed.length, `${tally.mixed.length} of ${tally.responses} responses mixed versions:\n${tally.mixed.slice(0, 5).join('\n')}`).toBe(0);
  });
});
