/**
 * Printable ASCII in the order of the root collation's primary weights, which `localeCompare`
 * uses by default: space and punctuation, digits, then letters (a capital letter has its small
 * letter's primary weight, and sorts after it only at the tertiary level).
 */
const PRIMARY_ORDER = ' _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz';

/** Primary weight by code unit (0x20–0x7e); 0 marks a character this table does not cover. */
const PRIMARY: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let i = 0; i < PRIMARY_ORDER.length; i++) table[PRIMARY_ORDER.charCodeAt(i)] = i + 1;
  for (let c = 0x41; c <= 0x5a; c++) table[c] = table[c + 0x20]!;
  return table;
})();

/** The root collation's comparison of two printable-ASCII strings, or undefined when either holds anything else. */
function asciiOrder(a: string, b: string): number | undefined {
  const n = Math.min(a.length, b.length);
  let tertiary = 0;
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    const pa = ca < 128 ? PRIMARY[ca]! : 0;
    const pb = cb < 128 ? PRIMARY[cb]! : 0;
    if (pa === 0 || pb === 0) return undefined;
    if (pa !== pb) return pa < pb ? -1 : 1;
    // same letter in another case: small first, decided only if nothing differs at the primary level
    if (tertiary === 0 && ca !== cb) tertiary = ca > cb ? -1 : 1;
  }
  for (const rest of [a.slice(n), b.slice(n)]) for (let i = 0; i < rest.length; i++) if (rest.charCodeAt(i) >= 128 || PRIMARY[rest.charCodeAt(i)] === 0) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return tertiary;
}

/**
 * `a.localeCompare(b)`, without ICU for printable ASCII: the tie-break of the ranked lists on the
 * search path (equal scores, then path). The first `localeCompare` in a process loads ICU's
 * collation data, 10–30 ms of a short-lived `scry search` (issue 19: start-up). Paths and query
 * terms are nearly always printable ASCII, which the root collation (Node's default, en-US) orders
 * by the table above; any other string goes to `localeCompare`. The sign is always
 * `localeCompare`'s: a property test pins it.
 */
export function localeOrder(a: string, b: string): number {
  if (a === b) return 0;
  return asciiOrder(a, b) ?? a.localeCompare(b);
}
