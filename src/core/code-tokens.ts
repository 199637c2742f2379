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
 * `user name` find `getUserName` and `user_name`. `cache` (one per file) memoises the splits,
 * which overlapping windows would otherwise repeat.
 */
export function identifierParts(text: string, cache?: Map<string, string | null>): string {
  const ids = text.match(IDENTIFIER_RE);
  if (ids === null) return '';
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    let words = cache?.get(id);
    if (words === undefined) {
      words = id.length > 2 && SPLITTABLE_RE.test(id) ? splitIdentifier(id).join(' ') : null;
      cache?.set(id, words);
    }
    if (words !== null) out.push(words);
  }
  return out.join(' ; ');
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
