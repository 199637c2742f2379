import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { isolatedEnv, tempDir, writeTree } from './temp.js';

/**
 * `files` written under `dir`/repo and indexed once into `dir`/index.db, then one engine per
 * configuration over that index: for comparing ranking settings on the same stored data.
 */
export async function enginesByConfig(dir: string, files: Record<string, string>, configs: Record<string, ConfigInput>): Promise<Map<string, Engine>> {
  const root = join(dir, 'repo');
  writeTree(root, files);
  const db = join(dir, 'index.db');
  const indexer = await createEngine({ root, db, env: isolatedEnv(dir) });
  await indexer.index();
  indexer.close();
  const engines = new Map<string, Engine>();
  for (const [name, config] of Object.entries(configs)) engines.set(name, await createEngine({ root, db, env: isolatedEnv(dir), config }));
  return engines;
}

/**
 * For the calling `describe`: before its tests, `files` indexed once in a temporary directory and
 * one engine per configuration (`enginesByConfig`); after them, the engines closed and the
 * directory removed. The map is filled by the time the tests run.
 */
export function useEnginesByConfig(files: Record<string, string>, configs: Record<string, ConfigInput>): Map<string, Engine> {
  const engines = new Map<string, Engine>();
  let t: ReturnType<typeof tempDir> | undefined;
  beforeAll(async () => {
    t = tempDir();
    for (const [name, engine] of await enginesByConfig(t.dir, files, configs)) engines.set(name, engine);
  });
  afterAll(() => {
    for (const e of engines.values()) e.close();
    t?.cleanup();
  });
  return engines;
}
