/**
 * SearchRepo.countUpTo (issue 19, natlat): the query plan counts a level's matches before scoring
 * it and skips it when fewer than the candidates it needs match. On a real index the count must
 * be the number of chunks the scored search returns (up to the bound), for words, phrases, ANDs
 * and ORs, so a skipped level is exactly one whose candidates the next level would have replaced.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { IndexStore } from '../../src/store/index-store.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const WORDS = ['parse', 'config', 'error', 'type', 'watch', 'module', 'render', 'cache', 'token', 'stream', 'retry', 'request'];

function moduleText(seed: number, n: number): string {
  let x = seed;
  const next = (): string => WORDS[(x = (x * 1103515245 + 12345) % 2147483648) % WORDS.length]!;
  return Array.from({ length: n }, (_, i) => {
    const [a, b, c] = [next(), next(), next()];
    return [`// ${a} the ${b} when ${c} fails`, `export function ${a}_${b}${i}(${c}: string): string {`, `  return ${c} + '${a} ${b}';`, '}', ''].join('\n');
  }).join('\n');
}

const EXPRESSIONS = ['"parse"', '"parse" AND "config"', '"parse" AND "config" AND "retry" AND "token"', '"render" OR "cache"', '"parse config"', '("typeerror" OR "type error")', '"zzzabsent"', '"zzzabsent" OR "watch"'];
const WEIGHTS = [6, 2, 5, 2, 1, 0.6, 1];

describe('SearchRepo.countUpTo', () => {
  let t: ReturnType<typeof tempDir>;
  let writer: Engine;
  let reader: IndexStore;
  let root: string;

  beforeAll(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    const db = join(t.dir, 'index.db');
    writeTree(root, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`src/m${i}.ts`, moduleText(i + 1, 2 + (i % 5))])));
    writer = await createEngine({ root, db, env: isolatedEnv(t.dir), config: { embed: { provider: 'none' } } as ConfigInput });
    await writer.index();
    reader = IndexStore.open(db, { create: false });
  });

  afterAll(() => {
    reader.close();
    writer.close();
    t.cleanup();
  });

  it('is the number of chunks the scored search returns, up to the bound', () => {
    const scored = EXPRESSIONS.map((e) => reader.read(() => reader.search.search(e, WEIGHTS, 10_000)).length);
    // some expressions match many chunks, some a few, one none: the bound and the zero are both exercised
    const most = Math.max(...scored);
    expect(most).toBeGreaterThan(5);
    expect(scored.some((n) => n > 0 && n < most)).toBe(true);
    expect(scored).toContain(0);
    for (const upTo of [1, 5, most - 1, most, 10_000]) {
      expect(EXPRESSIONS.map((e) => reader.read(() => reader.search.countUpTo(e, upTo)))).toEqual(scored.map((n) => Math.min(n, upTo)));
    }
  });

  it('SearchRepo.chunkCount is the chunks table count, and follows another connection\'s commits (issue 19: cached by data version)', async () => {
    const before = reader.read(() => reader.chunks.count());
    expect(before).toBeGreaterThan(0);
    expect(reader.read(() => reader.search.chunkCount())).toBe(before);
    writeFileSync(join(root, 'src/extra.ts'), moduleText(77, 6));
    await writer.index();
    const after = reader.read(() => reader.chunks.count());
    expect(after).toBeGreaterThan(before);
    expect(reader.read(() => reader.search.chunkCount())).toBe(after);
  });
});
