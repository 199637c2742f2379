/**
 * Schema 2. Files that were read and refused for their content (binary, minified, secret, too
 * large) are remembered with their size and mtime, so that an unchanged one is not read again on
 * every pass.
 */
export const migration002 = {
  version: 2,
  name: 'skipped',
  sql: `
CREATE TABLE skipped (
  path            TEXT PRIMARY KEY,
  size            INTEGER NOT NULL,
  mtime_ms        INTEGER NOT NULL,
  reason          TEXT NOT NULL,
  feature_version INTEGER NOT NULL,
  recorded_at_ms  INTEGER NOT NULL
) WITHOUT ROWID;
`,
} as const;
