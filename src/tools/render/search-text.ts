import { count, fenced, fenceTag, quoted, span, type TextDoc } from './text-doc.js';

/** A search result as agents get it: snake_case, nulls left out, score rounded (search-tools.ts `toHit`). */
export interface ToolHit {
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly score: number;
  readonly language: string;
  readonly kind: string;
  readonly symbol?: string;
  readonly container?: string;
  readonly signature?: string;
  readonly snippet: string;
  readonly chunk_hash: string;
  /** The collection the hit came from, when several were searched (issue 22). */
  readonly collection?: string;
  /** `file.pdf#page=N` for a PDF page. */
  readonly cite?: string;
}

interface HitsData {
  readonly results: readonly ToolHit[];
  readonly mode: string;
  readonly terms: readonly string[];
}

/**
 * The snippet as code: without the « » the engine puts around matched terms (the head lists the
 * terms), so what a model quotes back matches the file.
 */
const asCode = (snippet: string): string => snippet.replace(/[«»]/g, '');

/** `src/a.ts:10-20  Store.open (method, score 0.812)`, the signature, then the snippet in a fence. */
function hitBlock(hit: ToolHit, rank: number): string {
  const name = hit.symbol ? `  ${hit.container ? `${hit.container}.` : ''}${hit.symbol}` : '';
  const from = hit.collection !== undefined ? `[${hit.collection}] ` : '';
  const lines = [`${rank}. ${from}${hit.cite ?? span(hit.path, hit.start_line, hit.end_line)}${name} (${hit.kind}, score ${hit.score})`];
  const code = asCode(hit.snippet);
  if (hit.signature && !code.includes(hit.signature)) lines.push(`signature: ${hit.signature}`);
  lines.push(fenced(code, fenceTag(hit.language, hit.path)));
  return lines.join('\n');
}

/** search_code, search_docs and find_similar: ranked hits, each cited and with its snippet. */
export function renderHits(data: HitsData, args: Readonly<Record<string, unknown>>): TextDoc {
  const subject = typeof args.query === 'string' ? ` for ${quoted(args.query)}` : typeof args.code_snippet === 'string' ? ' similar to the snippet' : '';
  const terms = data.terms.length > 0 ? `; terms: ${data.terms.join(' ')}` : '';
  return {
    head: [`${count(data.results.length, 'result')}${subject} (${data.mode}${terms})`],
    items: data.results.map((hit, i) => hitBlock(hit, i + 1)),
    noun: 'results',
  };
}

interface TextMatchesData {
  readonly matches: ReadonlyArray<{ readonly path: string; readonly line: number; readonly column: number; readonly text: string }>;
  readonly files_with_matches: number;
  readonly files_scanned: number;
  readonly truncated: boolean;
  readonly case_sensitive: boolean;
}

/** search_text: like ripgrep, one `path:line:column: text` line per match, in path order. */
export function renderTextMatches(data: TextMatchesData, args: Readonly<Record<string, unknown>>): TextDoc {
  const subject = typeof args.query === 'string' ? ` for ${quoted(args.query)}` : '';
  const more = data.truncated ? ' (more exist)' : '';
  return {
    head: [
      `${count(data.matches.length, 'matching line')}${more}${subject} in ${count(data.files_with_matches, 'file')} of ${data.files_scanned} scanned (${data.case_sensitive ? 'case-sensitive' : 'case ignored'})`,
    ],
    items: data.matches.map((m) => `${m.path}:${m.line}:${m.column}: ${m.text}`),
    noun: 'matches',
    separator: '\n',
  };
}
