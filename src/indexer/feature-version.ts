import { TRANSIENT_FALLBACKS } from '../core/chunk.js';

/**
 * INDEX_FEATURE_VERSION: bump whenever chunker output, symbol output or the FTS fields change
 * for the same input. Each file row records the version it was indexed with; a file with another
 * version is re-chunked on the next pass (batch by batch, so the old index stays searchable).
 * test/unit/indexer/feature-digest.test.ts digests that output for the golden inputs and fails
 * when it differs from INDEX_FEATURE_DIGESTS[INDEX_FEATURE_VERSION]: then bump the version, add a
 * line here, and record the new digest.
 * Log of bumps:
 *  1 — line-window chunker with blank-line snapping; markdown by headings; fields stem, path,
 *      symbol, body, parts.
 *  2 — no window repeats a subset of the previous one; markdown chunks (frontmatter, fences longer
 *      than maxBytes) stay within maxBytes; windows prefer to end before a definition and record
 *      the names they define (symbol field).
 *  3 — tree-sitter chunking of 12 languages (definitions, container breadcrumbs, signatures,
 *      merged small siblings, inner-block splits); symbols and imports per file; FTS field
 *      `signature`; config files by key path; markdown frontmatter metadata.
 *  4 — output changed under version 3 without a bump: grammars and chunk rules for Python, Go,
 *      Rust, Java, C, C++, C#, Ruby and PHP; Vue/Svelte/HTML script blocks; AST chunk fixes (a
 *      merged chunk named after its largest definition, closing lines within maxBytes, imports
 *      under a package clause or header comment); TS ambient declarations exported; the FTS
 *      symbol field writes each word once per chunk; the syntax-or-windows choice is a
 *      deterministic work budget (`parse_budget`) instead of a 2 s deadline. Digest pinned
 *      from here on.
 *  5 — token literals (cloud keys, VCS and registry tokens, JWTs, high-entropy values of
 *      secret-named variables) are redacted to `«redacted:<rule>»` before chunking, so no stored
 *      row holds them; files with key blocks of any format (PEM, OpenSSH, PGP, PuTTY) are secrets.
 *  6 — identifier uses per file and name (`name_uses`, schema 7),
 *      which reference search and `related` read instead of parsing; a window after an overlap
 *      reaches the next non-blank line (no trimmed window repeats the end of the one before);
 *      the FTS `parts` field holds the character bigrams of CJK text (Han, kana, Hangul).
 *  7 — documents (issue 22): `.pdf`, `.eml` and `.mbox` files are read through extractors
 *      (pdf.js, mailparser) into markdown-shaped text (pages, threads, messages) and chunked by
 *      heading; `.eml`/`.mbox` were line windows of raw MIME before. Each chunk records its content
 *      timestamp (`ts_ms`, schema 8: heading date, document date-time, file date or mtime). The
 *      digest now includes a fixed mbox read through its extractor (feature-digest.test.ts).
 *  8 — comments and docstrings (tree-sitter comment nodes, Python string statements) are the FTS
 *      field `doc`, taken out of `body`; each chunk row records their spans (`doc_spans`, schema 10).
 *     Re-pinned without a bump (schema 11, issue 19): identifier uses are no longer index output
 *     (collected at query time; migration 11 drops `name_uses`). The new digest is the old code's
 *     digest with `uses` left out of each file, so chunks, symbols, imports and FTS fields are
 *     unchanged and no index needs re-chunking. Was 'e5015e6cf856ca74'.
 */
export const INDEX_FEATURE_VERSION = 8;

/**
 * Digest of the index output for the golden inputs, by feature version (see the test named
 * above). Append an entry with each bump; never edit an older one.
 */
export const INDEX_FEATURE_DIGESTS: Readonly<Record<number, string>> = {
  4: '4a4a292804b06d0a',
  5: '0ed53ffb57a5b971',
  6: 'd0cb7e54209e200a',
  7: '1de9f635c9f93dae',
  8: '0a39bbffbfcc7b7a',
};

/**
 * The version recorded on a file row whose parse was stopped by the wall-clock guard
 * (`parse_timeout`, TRANSIENT_FALLBACKS): not the current version, so the next pass parses the
 * file again although its content is unchanged (and no other file copies its rows meanwhile).
 */
export const RETRY_FEATURE_VERSION = 0;

/** The feature version to record on a file row with this fallback. */
export function rowFeatureVersion(fallback: string | null | undefined): number {
  return fallback && TRANSIENT_FALLBACKS.has(fallback) ? RETRY_FEATURE_VERSION : INDEX_FEATURE_VERSION;
}
