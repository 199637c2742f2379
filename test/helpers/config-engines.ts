import { join } from 'node:path';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { isolatedEnv, writeTree } from './temp.js';

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
