/**
 * What kind of query this is, for gating what helps only some kinds (issue 17): query expansion
 * and the vector blend help natural-language questions and must not touch the rest. Pure.
 * - `long`: an issue body, a commit message, a stack trace (more than 200 characters, or lines);
 * - `path`: names a file or folder (`src/store/db.ts`, `report/dot/theming`) among fewer than five
 *   other words (a sentence that writes `PostgreSQL/MySQL` or a URL in passing is prose);
 * - `identifier`: names code (a compound identifier, `os.path.join`, a quoted phrase) or is at most
 *   two words (`debounce`, `suggest similar`: what a function is called);
 * - `natural`: three or more words of prose, perhaps with a dotted name in passing.
 */
import type { ParsedQuery } from './query-parse.js';

export type QueryKind = 'identifier' | 'path' | 'long' | 'natural';
export const QUERY_KINDS: readonly QueryKind[] = ['identifier', 'path', 'long', 'natural'];

/** A file name's extension, for a query that is one or two tokens (`config.yaml`, `db.ts`). */
const FILE_EXT_RE = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|c|cc|cpp|h|hpp|swift|scala|vue|svelte|md|mdx|rst|txt|json|ya?ml|toml|ini|cfg|xml|html?|css|scss|sh|sql|lock|gradle)$/i;
/** Words besides the slashed ones from which a query is a sentence, not a path query (issue 18: doc-comment sentences with `a/b` in them). */
const PATH_PROSE_WORDS = 5;
const TOKEN_RE = /[\p{L}\p{N}_$]+(?:(?:\.|::|->|\/|-)[\p{L}\p{N}_$]+)*/gu;
/** An inner capital, an underscore between letters, `::` or `->`: written as code. */
const CODE_TOKEN_RE = /[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z0-9]_[A-Za-z0-9]|::|->/;

export function classifyQuery(query: string, parsed: Pick<ParsedQuery, 'long'>): QueryKind {
  if (parsed.long) return 'long';
  const tokens = [...query.replace(/"[^"]*"/g, ' ').matchAll(TOKEN_RE)].map((m) => m[0]);
  // a file or folder named among few other words; a sentence that writes `PostgreSQL/MySQL`, `0/1` or a URL in passing is prose
  if (tokens.some((t) => t.includes('/')) && tokens.filter((t) => !t.includes('/')).length < PATH_PROSE_WORDS) return 'path';
  if (tokens.length <= 2 && tokens.some((t) => FILE_EXT_RE.test(t))) return 'path';
  const code = tokens.filter((t) => CODE_TOKEN_RE.test(t)).length;
  if (/"[^"]+"/.test(query) || tokens.length <= 2 || code * 2 >= tokens.length) return 'identifier';
  return 'natural';
}
