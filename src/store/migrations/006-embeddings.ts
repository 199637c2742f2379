/**
 * Schema 6. Chunk embeddings, one row per (model fingerprint, chunk content hash): identical chunk
 * text is embedded once per model, a chunk whose text did not change keeps its vector across
 * passes, and vectors of two models never mix. `vector` is the blob layout of src/embed/quantize.ts
 * (int8 with its scale, or float32). Rows whose hash no chunk has any more are removed after each
 * embedding pass; rows of a model no longer configured are removed once the new model's vectors
 * are complete. No index on `chunks(hash)` is needed (schema 3 dropped it for indexing speed): every
 * join walks chunks and looks embeddings up by this primary key.
 */
export const migration006 = {
  version: 6,
  name: 'embeddings',
  sql: `
CREATE TABLE embeddings (
  model      TEXT NOT NULL,
  chunk_hash TEXT NOT NULL,
  vector     BLOB NOT NULL,
  PRIMARY KEY (model, chunk_hash)
) WITHOUT ROWID;
`,
} as const;
