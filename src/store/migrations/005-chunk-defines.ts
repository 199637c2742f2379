/**
 * Schema 5. Each chunk keeps the names it defines (the window, config and frontmatter chunkers
 * and merged definitions record several) when they are other than its symbol, front-coded
 * (`storedDefines` in src/indexer/fts-fields.ts); '' when they are just the symbol, or none.
 * They are the one parse output the FTS `symbol` field is built from that was not stored (the FTS
 * table is contentless: its fields cannot be read back). With them, a file whose content the
 * index already holds (a rename, a copy) gets its rows copied from the stored file instead of
 * being parsed again. Chunks written before this migration have NULL and are never copied from.
 */
export const migration005 = {
  version: 5,
  name: 'chunk-defines',
  sql: `ALTER TABLE chunks ADD COLUMN defines TEXT;`,
} as const;
