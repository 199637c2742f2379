/**
 * INDEX_FEATURE_VERSION: bump whenever chunker output, symbol output or the FTS fields change
 * for the same input. Each file row records the version it was indexed with; a file with another
 * version is re-chunked on the next pass (batch by batch, so the old index stays searchable).
 * Log of bumps:
 *  1 — line-window chunker with blank-line snapping; markdown by headings; fields stem, path,
 *      symbol, body, parts.
 *  2 — no window repeats a subset of the previous one; markdown chunks (frontmatter, fences longer
 *      than maxBytes) stay within maxBytes; windows prefer to end before a definition and record
 *      the names they define (symbol field).
 *  3 — tree-sitter chunking of 12 languages (definitions, container breadcrumbs, signatures,
 *      merged small siblings, inner-block splits); symbols and imports per file; FTS field
 *      `signature`; config files by key path; markdown frontmatter metadata.
 *  5 — token literals (cloud keys, VCS and registry tokens, JWTs, high-entropy values of
 *      secret-named variables) are redacted to `«redacted:<rule>»` before chunking, so no stored
 *      row holds them; files with key blocks of any format (PEM, OpenSSH, PGP, PuTTY) are secrets.
 *      (4 is another change's number.)
 */
export const INDEX_FEATURE_VERSION = 5;
