/**
 * Schema 12 (issue 19): stored file text may be compressed (`codec` 1: raw deflate; see
 * src/store/content-codec.ts), which takes the largest table of an index to about a quarter.
 * A compressed body carries a Bloom filter of its trigrams (`grams`, content-grams.ts), so that
 * `search_text` rules most non-matching ones out without inflating them. Existing bodies stay as
 * they are (`codec` 0, no filter) and are read as before; a body is written compressed when its
 * file is next indexed. Nothing is re-chunked.
 */
export const migration012 = {
  version: 12,
  name: 'content-codec',
  sql: `
ALTER TABLE content ADD COLUMN codec INTEGER NOT NULL DEFAULT 0;
ALTER TABLE content ADD COLUMN grams BLOB;
`,
} as const;
