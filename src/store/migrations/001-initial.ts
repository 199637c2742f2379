/**
 * Schema 1. Files map a path to the hash of its bytes; the decoded text is stored once per hash in
 * `content`; chunks are byte ranges of that text; `chunks_fts` is a contentless FTS5 index whose
 * rowid is the chunk id (text lives in `content` only, so the index stays small).
 */
export const migration001 = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE content (
  id   INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  body BLOB NOT NULL
);

CREATE TABLE files (
  id              INTEGER PRIMARY KEY,
  path            TEXT NOT NULL UNIQUE,
  language        TEXT NOT NULL,
  content_type    TEXT NOT NULL,
  size            INTEGER NOT NULL,
  mtime_ms        INTEGER NOT NULL,
  hash            TEXT NOT NULL,
  encoding        TEXT NOT NULL,
  line_count      INTEGER NOT NULL,
  feature_version INTEGER NOT NULL,
  indexed_at_ms   INTEGER NOT NULL
);
CREATE INDEX files_hash ON files(hash);

CREATE TABLE chunks (
  id         INTEGER PRIMARY KEY,
  file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ordinal    INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line   INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte   INTEGER NOT NULL,
  hash       TEXT NOT NULL,
  symbol     TEXT,
  container  TEXT
);
CREATE INDEX chunks_file ON chunks(file_id, ordinal);
CREATE INDEX chunks_hash ON chunks(hash);

CREATE VIRTUAL TABLE chunks_fts USING fts5(
  stem, path, symbol, body, parts,
  content = '',
  contentless_delete = 1,
  tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);

CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
`,
} as const;
