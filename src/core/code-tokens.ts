/**
 * Code-aware token splitting, shared by indexing (to build the FTS fields) and by query parsing
 * (so both sides split identically). Pure functions, no state.
 */

/** Identifiers as they appear in most languages (`$` for JS/PHP, digits after the first char). */
export const IDENTIFIER_RE = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Quick test: does this identifier have an internal word boundary worth splitting on? */
const SPLITTABLE_RE = /[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z0-9]_+[A-Za-z0-9]|[A-Za-z][0-9]|[0-9][A-Za-z]|\$[A-Za-z]|-/;

/**
 * Splits one identifier into lowercase words on camelCase, PascalCase (acronyms kept together),
 * snake_case, kebab-case, `$`, and letter/digit boundaries.
 * `XMLHttpRequest` → `xml http request`, `base64Encode` → `base 64 encode`.
 */
export function splitIdentifier(identifier: string): string[] {
  const parts: string[] = [];
  for (const piece of identifier.split(/[_$\-.]+/)) {
    if (piece === '') continue;
    const words = piece.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^A-Za-z0-9]+/g);
    if (!words) continue;
    for (const w of words) parts.push(w.toLowerCase());
  }
  return parts;
}

/** True when `splitIdentifier` would return more than one part. */
export function isCompoundIdentifier(identifier: string): boolean {
  return SPLITTABLE_RE.test(identifier);
}

/**
 * The "parts" field of a text: the words of every compound identifier, each distinct identifier
 * once, in order of first appearance. Whole identifiers stay in the body field; this field lets
 * `user name` find `getUserName` and `user_name`.
 */
export function identifierParts(text: string): string {
  const ids = text.match(IDENTIFIER_RE);
  if (ids === null) return '';
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (id.length > 2 && SPLITTABLE_RE.test(id)) out.push(splitIdentifier(id).join(' '));
  }
  return out.join(' ; ');
}

/**
 * Compound identifiers only, found by the regex engine in one pass (plain words never reach
 * JavaScript): an identifier with a lower→upper, acronym→word, inner underscore or letter/digit
 * boundary in it.
 */
const COMPOUND_IDENTIFIER_RE =
  /(?<![A-Za-z0-9_$])[A-Za-z_$][A-Za-z0-9_$]*?(?:[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z0-9]_+[A-Za-z0-9]|[A-Za-z][0-9]|[0-9][A-Za-z])[A-Za-z0-9_$]*/g;

/**
 * The compound identifiers of a whole file, by 0-based line, each split into words once. Chunks
 * then take the parts of their lines (`partsOfLines`) instead of re-scanning overlapping text.
 */
export function compoundsByLine(text: string): string[][] {
  const lines: string[][] = [[]];
  let line = 0;
  let nextNl = text.indexOf('\n');
  const words = new Map<string, string>();
  for (const m of text.matchAll(COMPOUND_IDENTIFIER_RE)) {
    while (nextNl !== -1 && nextNl < m.index) {
      line++;
      lines[line] = [];
      nextNl = text.indexOf('\n', nextNl + 1);
    }
    let split = words.get(m[0]);
    if (split === undefined) {
      split = splitIdentifier(m[0]).join(' ');
      words.set(m[0], split);
    }
    lines[line]!.push(split);
  }
  return lines;
}

/** The distinct identifier parts of lines [first, last] (0-based), in order of first appearance. */
export function partsOfLines(byLine: readonly (readonly string[] | undefined)[], first: number, last: number): string {
  const seen = new Set<string>();
  for (let l = first; l <= last && l < byLine.length; l++) for (const w of byLine[l] ?? []) seen.add(w);
  return [...seen].join(' ; ');
}

/** Words of a relative path: every segment, split like an identifier, e.g. `src/ftsQuery.ts` → `src fts query ftsquery ts`. */
export function pathTerms(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    for (const piece of segment.split('.')) {
      if (piece === '') continue;
      const parts = splitIdentifier(piece);
      out.push(...parts);
      const whole = piece.toLowerCase();
      if (parts.length > 1 && /^[a-z0-9_]+$/.test(whole)) out.push(whole);
    }
  }
  return out.join(' ');
}

/** The file stem (basename without its last extension) as search words. */
export function stemTerms(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return pathTerms(stem);
}

/**
 * A letter of a script written without spaces between words (Han, Hiragana, Katakana) or whose
 * words take suffixes (Hangul), plus the marks that continue such a run: the prolonged sound mark
 * `ー` (U+30FC, and its halfwidth form) and the iteration mark `々`, which are Script=Common.
 */
const CJK_CHAR = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\u30fc\uff70\u3005`;
const CJK_TEST_RE = new RegExp(`[${CJK_CHAR}]`, 'u');
const CJK_SPLIT_RE = new RegExp(`([${CJK_CHAR}]+)`, 'u');
/** A word as FTS5's unicode61 tokenizer (tokenchars `_`) sees it, containing a CJK letter. */
const CJK_WORD_RE = new RegExp(String.raw`[\p{L}\p{N}\p{M}_]*[${CJK_CHAR}][\p{L}\p{N}\p{M}_]*`, 'gu');

export const hasCjk = (text: string): boolean => CJK_TEST_RE.test(text);

/** The overlapping character bigrams of a CJK run (`数据库` → `数据 据库`); a run of one character is itself. */
export function cjkBigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/**
 * A word split into its CJK runs and the other pieces (`连接数据库timeout` → `连接数据库`, `timeout`),
 * in order; `cjk` marks the runs.
 */
export function cjkPieces(word: string): Array<{ text: string; cjk: boolean }> {
  return word
    .split(CJK_SPLIT_RE)
    .map((text, i) => ({ text, cjk: i % 2 === 1 }))
    .filter((p) => p.text !== '');
}

/**
 * The CJK terms of a text for the FTS `parts` field. FTS5's unicode61 tokenizer keeps a run of
 * CJK letters as one token (a sentence without spaces is one "word"), so that only the whole run
 * would match. For each word containing CJK letters: the bigrams of each CJK run, in order (a
 * query's run is searched as the phrase of its bigrams: any substring of two or more characters
 * is found), and the word's other pieces (`timeout` in `数据库timeout`). Words separated by ' ; '.
 * '' for a text without CJK letters (checked first, in one regex pass).
 */
export function cjkTerms(text: string): string {
  if (!CJK_TEST_RE.test(text)) return '';
  const out: string[] = [];
  for (const m of text.matchAll(CJK_WORD_RE)) {
    out.push(cjkPieces(m[0]).flatMap((p) => (p.cjk ? cjkBigrams(p.text) : [p.text])).join(' '));
  }
  return out.join(' ; ');
}
