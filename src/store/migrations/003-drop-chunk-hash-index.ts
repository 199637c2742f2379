/**
 * Schema 3. The index on chunks(hash) is dropped: no query uses it yet, and keeping a B-tree of
 * random 64-character keys up to date cost about a tenth of bulk indexing time. The embedding
 * cache that will look chunks up by hash adds what it needs in its own migration.
 */
export const migration003 = {
  version: 3,
  name: 'drop-chunk-hash-index',
  sql: `DROP INDEX IF EXISTS chunks_hash;`,
} as const;
