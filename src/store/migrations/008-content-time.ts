/**
 * Schema 8 (issue 22): each chunk's content timestamp, ms since the epoch: the date of the
 * message or page section it holds, else its file's (frontmatter `updated`/`date`, a mail's
 * date, the file's mtime). Null in rows written before (no recency boost, and no penalty).
 */
export const migration008 = {
  version: 8,
  name: 'content-time',
  sql: `
ALTER TABLE chunks ADD COLUMN ts_ms INTEGER;
`,
} as const;
