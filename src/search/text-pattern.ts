import { EngineError } from '../core/errors.js';

/** Longest search_text query, in UTF-8 bytes: a query is one line, not a pasted file. */
export const MAX_TEXT_QUERY_BYTES = 4096;

/** A literal every match of a pattern contains, checked on a file's raw bytes before decoding it. */
export type RequiredLiteral =
  /** Exact UTF-8 bytes (`Buffer.indexOf`). */
  | { readonly kind: 'bytes'; readonly text: string; readonly bytes: Buffer }
  /** ASCII letters in any case: a case-insensitive regex run over the bytes decoded as latin1. */
  | { readonly kind: 'ascii-ci'; readonly text: string; readonly re: RegExp };

/**
 * A compiled search_text query. What a match *is* is defined by `line`: a line (without its
 * `\n` or `\r\n`) matches when `line` finds a match in it, and the column is where the first
 * one starts. Every scanning strategy must agree with that definition (a property test holds
 * them to a naive line-by-line oracle).
 */
export interface TextPattern {
  readonly query: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  /** Finds the first match in one line (no `g` flag). */
  readonly line: RegExp;
  /** The same pattern with `g`, run over a whole file. */
  readonly global: RegExp;
  /** UTF-8 bytes of a case-sensitive literal: searched with `Buffer.indexOf`, nothing decoded. */
  readonly needle: Buffer | undefined;
  /**
   * True for a case-insensitive ASCII literal: `global` may run over the raw bytes decoded as
   * latin1 (without the `u` flag an ASCII letter folds only to ASCII, so byte offsets are exact).
   */
  readonly bytewise: boolean;
  /** For regexes: a literal every match contains, so files without it are skipped undecoded. */
  readonly required: RequiredLiteral | undefined;
  /** Lookarounds can see past a line's end in a whole-file scan, so such a regex runs per line. */
  readonly perLine: boolean;
  /**
   * Text every matching line contains, exactly or up to the case of ASCII letters (never other
   * folding, never a NUL), or undefined: lets the store skip files without copying them out.
   */
  readonly prefilter: { readonly text: string; readonly ignoreAsciiCase: boolean } | undefined;
}

const invalid = (reason: string): EngineError => new EngineError('INVALID_ARGUMENT', { name: 'query', reason });

// eslint-disable-next-line no-control-regex
const isAsciiString = (s: string): boolean => /^[\x00-\x7f]*$/.test(s);
export const escapeRegExp = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** Letters a pattern spells out, without escapes (`\W`, `\p{Lu}`, `\u00C9`) and group names. */
function visibleText(source: string): string {
  return source.replace(/\\[pP]\{[^}]*\}|\\k<[^>]*>|\(\?<[^>=!]*>|\\u\{[0-9a-fA-F]*\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\c[a-zA-Z]|\\./gsu, '');
}

/** Smart case (as `rg --smart-case`): case-sensitive only when the query spells an uppercase letter. */
export function smartCase(query: string, regex: boolean): boolean {
  const text = regex ? visibleText(query) : query;
  return text !== text.toLowerCase();
}

/** Positions of the group openings `(` of a regex source: escaped characters and character classes skipped. */
function groupOpenings(source: string): number[] {
  const out: number[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') out.push(i);
  }
  return out;
}

/** `(?i)`, `(?-s)`, `(?P<name>...)`: syntax of other regex engines that JavaScript rejects with a vague message. */
function foreignGroup(source: string): string | undefined {
  const at = groupOpenings(source).find((i) => source[i + 1] === '?' && /[A-Za-z-]/.test(source[i + 2] ?? ''));
  return at === undefined ? undefined : source.slice(at, at + 4);
}

/** Index just past the group or class that opens at `i` (escapes and nested classes respected). */
function skipBracket(cps: readonly string[], i: number): number {
  let depth = 0;
  let inClass = false;
  for (let j = i; j < cps.length; j++) {
    const c = cps[j];
    if (c === '\\') j++;
    else if (inClass) {
      if (c === ']') {
        inClass = false;
        if (cps[i] === '[') return j + 1;
      }
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return j + 1;
  }
  return cps.length;
}

/** Index just past an escape at `i` that is not a literal character (`\w`, `\x41`, `\p{L}`, `\k<a>`, `\12`). */
function skipEscape(cps: readonly string[], i: number): number {
  const kind = cps[i + 1] ?? '';
  let j = i + 2;
  if (kind === 'c') return j + 1;
  if ('pPku'.includes(kind) && (cps[j] === '{' || cps[j] === '<')) {
    while (j < cps.length && cps[j] !== '}' && cps[j] !== '>') j++;
    return j + 1;
  }
  // \x41 and \u0041 take 2 and 4 hex digits; a backreference or octal escape takes all its digits
  const [more, count] = kind === 'x' ? [/[0-9a-fA-F]/, 2] : kind === 'u' ? [/[0-9a-fA-F]/, 4] : /[0-9]/.test(kind) ? [/[0-9]/, Infinity] : [/$^/, 0];
  for (let n = 0; n < count && j < cps.length && more.test(cps[j]!); n++) j++;
  return j;
}

/**
 * Runs of literal characters that every match contains, read from the top level of a regex.
 * Conservative: anything unclear ends a run, a quantifier that allows zero drops the character
 * before it, and a top-level `|` means nothing is required. Groups and classes are skipped.
 */
export function requiredRuns(source: string): string[] {
  const cps = Array.from(source);
  const runs: string[] = [];
  let run: string[] = [];
  const end = (): void => {
    if (run.length > 0) runs.push(run.join(''));
    run = [];
  };
  let i = 0;
  while (i < cps.length) {
    const c = cps[i]!;
    if (c === '|') return [];
    if (c === '\\') {
      const next = cps[i + 1];
      if (next !== undefined && !/[A-Za-z0-9]/.test(next)) {
        run.push(next);
        i += 2;
      } else {
        end();
        i = skipEscape(cps, i);
      }
    } else if (c === '(' || c === '[') {
      end();
      i = skipBracket(cps, i);
    } else if (c === '*' || c === '?') {
      run.pop();
      end();
      i++;
    } else if (c === '{') {
      const quantifier = /^\{\d+(,\d*)?\}/.exec(cps.slice(i, i + 24).join(''));
      if (quantifier) run.pop();
      end();
      i += quantifier ? Array.from(quantifier[0]).length : 1;
    } else if ('+.^$)]}'.includes(c)) {
      end();
      i++;
    } else {
      run.push(c);
      i++;
    }
  }
  end();
  return runs;
}

/**
 * The best required literal for a prefilter, or undefined. Case-insensitive runs keep only ASCII
 * characters other than k and s: under the `iu` flags those two also match the Kelvin sign and
 * the long s, which an ASCII prefilter would miss.
 */
export function requiredLiteral(source: string, caseSensitive: boolean): RequiredLiteral | undefined {
  const runs = requiredRuns(source).flatMap((r) => (caseSensitive ? [r] : r.split(/[^\x20-\x7e]|[kKsS]/)));
  const best = runs.reduce((a, b) => (Buffer.byteLength(b) > Buffer.byteLength(a) ? b : a), '');
  if (best === '') return undefined;
  if (caseSensitive || !/[A-Za-z]/.test(best)) return { kind: 'bytes', text: best, bytes: Buffer.from(best, 'utf8') };
  return { kind: 'ascii-ci', text: best, re: new RegExp(escapeRegExp(best), 'i') };
}

/**
 * A store prefilter from the longest piece of `text` without a NUL (SQL stops reading at one)
 * and, when ASCII case is ignored, without non-ASCII characters (folded some other way).
 */
function prefilterOf(text: string, ignoreAsciiCase: boolean): TextPattern['prefilter'] {
  // eslint-disable-next-line no-control-regex
  const best = text.split(ignoreAsciiCase ? /[^\x01-\x7f]+/ : /\0+/).reduce((a, b) => (b.length > a.length ? b : a), '');
  return best === '' ? undefined : { text: best, ignoreAsciiCase };
}

function hasLookaround(source: string): boolean {
  return groupOpenings(source).some((i) => /^\?<?[=!]/.test(source.slice(i + 1, i + 4)));
}

/** Compiles a regex with the `u` flag, or without it when only the legacy syntax accepts it (`\:`, `\-`). */
function compileRegex(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, `${flags}u`);
  } catch (err) {
    try {
      return new RegExp(source, flags);
    } catch {
      throw invalid(`not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Validates and compiles a query. Throws QUERY_EMPTY, QUERY_TOO_LONG or INVALID_ARGUMENT. */
export function compileTextPattern(query: string, options: { regex: boolean; caseSensitive: boolean | undefined }): TextPattern {
  if (typeof query !== 'string') throw invalid('must be a string');
  if (query === '') throw new EngineError('QUERY_EMPTY', {}, { hint: 'pass the exact text to find, e.g. "TODO(" or a regex with regex=true' });
  const bytes = Buffer.byteLength(query, 'utf8');
  if (bytes > MAX_TEXT_QUERY_BYTES) throw new EngineError('QUERY_TOO_LONG', { bytes, limit: MAX_TEXT_QUERY_BYTES });
  if (/[\r\n]/.test(query)) throw invalid('must be a single line: search_text matches within one line (a regex may use \\s, never a line break)');
  if (/\p{Cs}/u.test(query)) throw invalid('contains a lone UTF-16 surrogate');
  const { regex } = options;
  const caseSensitive = options.caseSensitive ?? smartCase(query, regex);
  if (!regex) {
    // literals use `i` without `u`: an ASCII letter folds only to ASCII, so byte offsets stay exact
    const flags = caseSensitive ? '' : 'i';
    const source = escapeRegExp(query);
    return {
      query, regex, caseSensitive,
      line: new RegExp(source, flags),
      global: new RegExp(source, `${flags}g`),
      needle: caseSensitive ? Buffer.from(query, 'utf8') : undefined,
      bytewise: !caseSensitive && isAsciiString(query),
      required: undefined,
      perLine: false,
      // without `u`, an ASCII letter folds only to ASCII: any ASCII run of the query is exact up to ASCII case
      prefilter: prefilterOf(query, !caseSensitive),
    };
  }
  const foreign = foreignGroup(query);
  if (foreign) throw invalid(`"${foreign}" is not JavaScript regex syntax: inline flags are not supported (pass case_sensitive instead), and named groups are written (?<name>...)`);
  const flags = caseSensitive ? 'm' : 'im';
  const line = compileRegex(query, flags);
  const required = requiredLiteral(query, caseSensitive);
  return {
    query, regex, caseSensitive, line,
    global: new RegExp(query, `${line.flags}g`),
    needle: undefined,
    bytewise: false,
    required,
    perLine: hasLookaround(query),
    prefilter: required ? prefilterOf(required.text, required.kind === 'ascii-ci') : undefined,
  };
}
