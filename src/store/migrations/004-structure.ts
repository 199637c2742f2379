/**
 * Schema 4: code structure. Definitions (`symbols`) and import statements (`imports`) per file;
 * per-chunk signature; per-file parser, fallback reason and document metadata. The FTS table
 * gains a `signature` field, so it is rebuilt: chunks are dropped and every file is marked for
 * re-chunking (feature version 0), which the next pass does batch by batch.
 */
export const migration004 = {
  version: 4,
  name: 'structure',
  sql: `
ALTER TABLE chunks ADD COLUMN signature TEXT;
ALTER TABLE files ADD COLUMN parser TEXT NOT NULL DEFAULT 'window';
ALTER TABLE files ADD COLUMN fallback TEXT;
ALTER TABLE files ADD COLUMN metadata TEXT;

CREATE TABLE symbols (
  id         INTEGER PRIMARY KEY,
  file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  container  TEXT,
  signature  TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  start_col  INTEGER NOT NULL,
  end_line   INTEGER NOT NULL,
  end_col    INTEGER NOT NULL,
  exported   INTEGER NOT NULL
);
CREATE INDEX symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX symbols_file ON symbols(file_id);

CREATE TABLE imports (
  id      INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  line    INTEGER NOT NULL,
  kind    TEXT NOT NULL,
  source  TEXT NOT NULL,
  names   TEXT NOT NULL
);
CREATE INDEX imports_file ON imports(file_id);

DROP TABLE chunks_vocab;
DROP TABLE chunks_fts;
DELETE FROM chunks;
UPDATE files SET feature_version = 0;
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  stem, path, symbol, signature, body, parts,
  content = '',
  contentless_delete = 1,
  tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
`,
} as const;
