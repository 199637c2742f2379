/**
 * Schema 10 (issue 18): comments and docstrings get their own FTS column, `doc`, out of `body`, so
 * that ranking weighs them apart from code; each chunk row records where they are (`doc_spans`,
 * offsets relative to the chunk; see `storedDocSpans`), so that a renamed or copied file's rows
 * are copied with the same fields without parsing. An FTS5 table cannot gain a column: the table
 * is made anew, and every chunk with it. File rows and stored contents stay; their feature version
 * is reset, so the next pass re-chunks every file (batch by batch) and finds the index empty of
 * chunks until then. Embeddings are keyed by chunk text, which does not change: none is lost.
 */
export const migration010 = {
  version: 10,
  name: 'doc-field',
  sql: `
DROP TABLE chunks_vocab;
DROP TABLE chunks_fts;
DELETE FROM chunks;
UPDATE files SET feature_version = 0;
ALTER TABLE chunks ADD COLUMN doc_spans TEXT NOT NULL DEFAULT '';
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  stem, path, symbol, signature, body, parts, doc,
  content = '',
  contentless_delete = 1,
  tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
`,
} as const;
