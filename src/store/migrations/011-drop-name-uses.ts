/**
 * Schema 11 (issue 19): identifier uses are no longer stored. A reference search and `related`
 * parse the candidate files the FTS index gives them and classify the name's occurrences there
 * (src/search/name-occurrences.ts), which removes a quarter of the index pass's parse CPU and the
 * writer's largest table by rows. Nothing else reads the rows, so they are dropped: nothing is
 * re-chunked (the feature version is unchanged). The migration runs in the transaction that
 * records user_version 11: a crash leaves schema 10 with its rows, which this build drops on the
 * next open.
 */
export const migration011 = {
  version: 11,
  name: 'drop-name-uses',
  sql: `
DROP INDEX IF EXISTS name_uses_name;
DROP TABLE IF EXISTS name_uses;
`,
} as const;
