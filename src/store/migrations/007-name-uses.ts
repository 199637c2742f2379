/**
 * Schema 7: identifier uses. Per file parsed with its own grammar and per name, every occurrence
 * of the name as an identifier with how it is used (packed, see NameUsesDraft in
 * src/core/symbol.ts), so that a reference search and `related` read them instead of parsing
 * files at query time. Files indexed before this schema have none until re-chunked (the feature
 * version that comes with it re-chunks every file); until then a reference search parses them.
 * Clustered by (file, name), without rowid: a file's rows are written, read and deleted together;
 * the name index serves `related`.
 */
export const migration007 = {
  version: 7,
  name: 'name-uses',
  sql: `
CREATE TABLE name_uses (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name    TEXT NOT NULL,
  uses    TEXT NOT NULL,
  PRIMARY KEY (file_id, name)
) WITHOUT ROWID;
CREATE INDEX name_uses_name ON name_uses(name);
`,
} as const;
