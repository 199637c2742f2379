/**
 * Vectors for cached benchmark indexes, for bench/model-quality.ts.
 * - `embedIndex`: a provider's copy of a lexical index (`<name>.<provider>.db` next to it), with
 *   the vectors the embedding pass computes from the stored chunk texts: no tree is walked, so it
 *   works on the devset's cached commit indexes whose tree is gone.
 * - `VectorPool`: one SQLite file per repository and provider holding every vector computed so far,
 *   keyed like the index's own table (model, chunk content hash). The commits of one repository
 *   share most chunks, so only the chunks a commit changed are embedded.
 */
import { openConnection } from '../src/store/driver.js';
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { resolveConfig } from '../src/config/resolve.js';
import { silentLogger } from '../src/core/logger.js';
import { createEmbeddingProvider } from '../src/embed/create-provider.js';
import type { EmbeddingProvider } from '../src/embed/provider.js';
import { runEmbedPass, type EmbedReport } from '../src/indexer/embed-pass.js';
import type { ConfigInput } from '../src/index.js';
import { IndexStore } from '../src/store/index-store.js';

/** A provider made from the config `embed` section, as the engine would make it. */
export async function providerFor(config: ConfigInput, root: string): Promise<{ provider: EmbeddingProvider; batchSize: number; maxChars: number; storage: 'int8' | 'float32' }> {
  const resolved = await resolveConfig({ root, overrides: config, env: {} });
  const provider = createEmbeddingProvider(resolved.embed, { modelsDir: resolved.models.dir });
  if (!provider) throw new Error(`no provider for ${JSON.stringify(config)}`);
  return { provider, batchSize: resolved.embed.batchSize, maxChars: resolved.embed.maxChars, storage: resolved.embed.storage };
}

/** Copies vectors between an index and a pool file (the pool's table is created on first use). */
function share(dbPath: string, pool: string | undefined, direction: 'in' | 'out'): void {
  if (!pool) return;
  const db = openConnection(dbPath);
  try {
    db.prepare('ATTACH DATABASE ? AS pool').run(pool);
    db.exec('CREATE TABLE IF NOT EXISTS pool.embeddings (model TEXT NOT NULL, chunk_hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, chunk_hash)) WITHOUT ROWID');
    if (direction === 'in') db.exec('INSERT OR IGNORE INTO main.embeddings SELECT p.model, p.chunk_hash, p.vector FROM pool.embeddings p WHERE p.chunk_hash IN (SELECT hash FROM main.chunks)');
    else db.exec('INSERT OR IGNORE INTO pool.embeddings SELECT model, chunk_hash, vector FROM main.embeddings');
  } finally {
    db.close();
  }
}

/**
 * `target`: the lexical index `source` with vectors of `embed` added (made once, then reused).
 * With `pool`, vectors already computed for the same texts are taken from it and new ones added.
 */
export async function embedIndex(source: string, target: string, embed: Awaited<ReturnType<typeof providerFor>>, pool?: string): Promise<EmbedReport | undefined> {
  if (existsSync(target)) return undefined;
  const tmp = `${target}.tmp`;
  copyFileSync(source, tmp);
  share(tmp, pool, 'in');
  const store = IndexStore.open(tmp, { create: false });
  let report: EmbedReport;
  try {
    report = await runEmbedPass({ store, provider: embed.provider, batchSize: embed.batchSize, maxChars: embed.maxChars, storage: embed.storage, logger: silentLogger, now: Date.now });
  } finally {
    store.close();
  }
  share(tmp, pool, 'out');
  renameSync(tmp, target);
  return report;
}
