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
