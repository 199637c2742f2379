import { posix } from 'node:path';
import type { GraphSymbol } from './repo-graph.js';
import type { TokenCounter } from './tokens.js';

/**
 * The repo map as text, and its fit to a token budget. The text groups the chosen files by
 * directory (directories, then files, in code-point order), one line per file (with `[main]` or
 * `[util]` after the name for those roles) and one indented line per top-level exported symbol:
 *
 *     src/store/
 *       database.ts [main]
 *         function openDatabase(path: string): Db
 *     … 12 more files
 */

/** A file as the map shows it. */
export interface MapEntry {
  readonly path: string;
  readonly role: 'main' | 'module' | 'utility' | 'test';
  readonly symbols: readonly GraphSymbol[];
}

/** Symbols shown per file; the rest are counted on a `… N more` line. */
export const MAX_SYMBOLS_PER_FILE = 10;
/** Characters of one symbol line before it is cut with `…`. */
export const MAX_SIGNATURE_CHARS = 100;

const ROLE_LABEL: Record<MapEntry['role'], string> = { main: ' [main]', utility: ' [util]', module: '', test: '' };

/** Signatures that already say what they declare; others get their kind in front (`constant x = make(`). */
const DECLARES = /^(?:export|default|declare|abstract|async|pub|public|protected|private|internal|static|final|sealed|open|function|class|interface|type|enum|namespace|module|struct|trait|impl|def|fn|func|const|let|var|val|object|record|protocol|package|union|typedef|template|@)\b/;

/** One symbol as one line: its signature (kind first when the signature does not say it), cut to MAX_SIGNATURE_CHARS. */
export function symbolLine(s: GraphSymbol): string {
  const sig = s.signature.replace(/\s+/g, ' ').trim().replace(/\s*[{;:]$/, '');
  const line = sig === '' ? `${s.kind} ${s.name}` : DECLARES.test(sig) ? sig : `${s.kind} ${sig}`;
  return line.length > MAX_SIGNATURE_CHARS ? `${line.slice(0, MAX_SIGNATURE_CHARS - 1).trimEnd()}…` : line;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The map text of these files, grouped by directory, with a closing line counting `omitted` files. */
export function renderMap(entries: readonly MapEntry[], omitted: number): string {
  const keyed = entries.map((e) => ({ e, dir: posix.dirname(e.path), base: posix.basename(e.path) }));
  keyed.sort((a, b) => cmp(a.dir, b.dir) || cmp(a.base, b.base));
  const lines: string[] = [];
  let dir: string | undefined;
  for (const { e, dir: d, base } of keyed) {
    if (d !== dir) lines.push(d === '.' ? './' : `${d}/`);
    dir = d;
    lines.push(`  ${base}${ROLE_LABEL[e.role]}`);
    const shown = e.symbols.slice(0, MAX_SYMBOLS_PER_FILE);
    for (const s of shown) lines.push(`    ${symbolLine(s)}`);
    if (e.symbols.length > shown.length) lines.push(`    … ${e.symbols.length - shown.length} more`);
  }
  if (omitted > 0) lines.push(`… ${omitted} more file${omitted === 1 ? '' : 's'}`);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

export interface FittedMap {
  readonly text: string;
  /** How many of the first (highest-ranked) entries the text shows. */
  readonly included: number;
  readonly tokens: number;
}

/**
 * Generous characters per token: only bounds the binary search from above (o200k averages about 4
 * on code), so an unusual text can cost a few files, never the budget.
 */
const MAX_CHARS_PER_TOKEN = 32;

/**
 * The map of the largest number of top-ranked entries whose text, counted with `counter`, is at
 * most `budget` tokens: a binary search over the count (text grows with it). Never over budget;
 * an empty text when not even the closing line fits.
 */
export function fitMap(ranked: readonly MapEntry[], budget: number, counter: TokenCounter): FittedMap {
  const at = (k: number): string => renderMap(ranked.slice(0, k), ranked.length - k);
  // a cheap upper bound on the count: files whose own lines alone are far over budget cannot fit
  let hi = 0;
  let chars = 0;
  while (hi < ranked.length) {
    const e = ranked[hi]!;
    chars += e.path.length + e.symbols.slice(0, MAX_SYMBOLS_PER_FILE).reduce((sum, s) => sum + Math.min(s.signature.length, MAX_SIGNATURE_CHARS), 0);
    if (chars > budget * MAX_CHARS_PER_TOKEN) break;
    hi++;
  }
  let best: FittedMap = { text: '', included: 0, tokens: 0 };
  let lo = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const text = at(mid);
    const tokens = counter.count(text);
    if (tokens <= budget) {
      best = { text, included: mid, tokens };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
