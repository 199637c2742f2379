import { splitIdentifier } from '../core/code-tokens.js';

/** Marks around matched terms in snippets. Documented in the JSON schema; the CLI renders them bold. */
export const MARK_OPEN = '«';
export const MARK_CLOSE = '»';

const WORD_RE = /[\p{L}\p{N}_$]+/gu;

/** A crude suffix stripper, used only to decide what to highlight (ranking uses FTS5's porter). */
export function lightStem(word: string): string {
  const w = word.toLowerCase();
  if (w.length <= 4) return w;
  return w.replace(/(?:ational|ization|fulness|ousness|iveness|ations|ation|ments|ment|ings|ing|ies|ied|ers|er|ed|es|s|e|y)$/, '') || w;
}

/** Builds the set of stems a token must hit to be highlighted. */
export function highlightTerms(words: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const w of words) out.add(lightStem(w));
  return out;
}

function tokenMatches(token: string, terms: ReadonlySet<string>): boolean {
  if (terms.has(lightStem(token))) return true;
  const parts = splitIdentifier(token);
  return parts.length > 1 && parts.some((p) => terms.has(lightStem(p)));
}

/** `tokenMatches` against one set of terms, each distinct token decided once (a chunk repeats its identifiers). */
function tokenMatcher(terms: ReadonlySet<string>): (token: string) => boolean {
  const seen = new Map<string, boolean>();
  return (token) => {
    let hit = seen.get(token);
    if (hit === undefined) seen.set(token, (hit = tokenMatches(token, terms)));
    return hit;
  };
}

function markLine(line: string, matches: (token: string) => boolean): { text: string; hits: number } {
  let hits = 0;
  const text = line.replace(WORD_RE, (token) => {
    if (!matches(token)) return token;
    hits++;
    return `${MARK_OPEN}${token}${MARK_CLOSE}`;
  });
  return { text, hits };
}

/**
 * Per line of `text` (lines split at \n, as `makeSnippet` splits them; \r is no word character),
 * how many distinct matched tokens it holds, lower-cased. One walk of the whole text with one
 * regular expression, a line's set made only when it has a hit (issue 19, natlat: a result's
 * chunk can hold thousands of tokens, and a match iterator, its match arrays and a set per line
 * were most of what a search allocated).
 */
export function lineScores(text: string, lineCount: number, matches: (token: string) => boolean): number[] {
  const scores = new Array<number>(lineCount).fill(0);
  const re = new RegExp(WORD_RE.source, WORD_RE.flags);
  let line = 0;
  let lineEnd = text.indexOf('\n');
  let seen: Set<string> | undefined;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (lineEnd !== -1 && m.index > lineEnd) {
      if (seen) scores[line] = seen.size;
      seen = undefined;
      // a token never spans a line break: move to the line holding this one
      while (lineEnd !== -1 && m.index > lineEnd) {
        line++;
        lineEnd = text.indexOf('\n', lineEnd + 1);
      }
    }
    const token = m[0];
    if (matches(token)) (seen ??= new Set()).add(token.toLowerCase());
  }
  if (seen) scores[line] = seen.size;
  return scores;
}

export interface Snippet {
  readonly text: string;
  /** 1-based line of the snippet's first line in the file. */
  readonly startLine: number;
}

/**
 * The `maxLines` consecutive lines of a chunk with the most distinct matched terms, matched
 * tokens wrapped in « ». Lines longer than 240 characters are cut around the first match.
 */
export function makeSnippet(chunkText: string, chunkStartLine: number, terms: ReadonlySet<string>, maxLines = 4): Snippet {
  const lines = chunkText.split(/\r?\n/);
  const matches = tokenMatcher(terms);
  const scores = lineScores(chunkText, lines.length, matches);
  let bestStart = 0;
  let bestScore = -1;
  for (let i = 0; i < lines.length; i++) {
    let s = 0;
    for (let j = i; j < Math.min(lines.length, i + maxLines); j++) s += scores[j]!;
    if (s > bestScore) {
      bestScore = s;
      bestStart = i;
    }
  }
  // start at the first matching line of the best window, so the match is visible first
  while (bestStart < lines.length - 1 && scores[bestStart] === 0 && bestScore > 0) bestStart++;
  const picked = lines.slice(bestStart, bestStart + maxLines).map((line) => {
    let l = line;
    if (l.length > 240) {
      const first = Math.max(0, l.search(WORD_RE));
      l = `${first > 40 ? '…' : ''}${l.slice(Math.max(0, first - 40), Math.max(0, first - 40) + 240)}…`;
    }
    return markLine(l, matches).text;
  });
  while (picked.length > 1 && picked[picked.length - 1]!.trim() === '') picked.pop();
  return { text: picked.join('\n'), startLine: chunkStartLine + bestStart };
}
