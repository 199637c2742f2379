import { cjkBigrams, cjkPieces, hasCjk, isCompoundIdentifier, splitIdentifier } from '../core/code-tokens.js';
import { EngineError } from '../core/errors.js';
import { understandQuery, type UnderstoodQuery } from './query-understand.js';
import { STOP_WORDS } from './stop-words.js';
import type { Frame, FrameFate } from './traceback.js';

/** Largest query accepted, in UTF-8 bytes (an issue body or a stack trace fits). */
export const MAX_QUERY_BYTES = 50 * 1024;
/** A query longer than this, or spanning lines, is "long": quotes are not required matches. */
const SHORT_QUERY_CHARS = 200;

/** `joined`: two adjacent query words tried as one identifier (speculative, never reported as dropped). */
export type GroupKind = 'word' | 'identifier' | 'phrase' | 'path' | 'joined';

/**
 * One concept of the query. Its alternatives are OR'ed; each alternative is a phrase of words
 * (one word for a plain term) spelled as the index stores them, lowercase.
 */
export interface TermGroup {
  readonly key: string;
  readonly raw: string;
  readonly kind: GroupKind;
  readonly alternatives: readonly (readonly string[])[];
  /** User-quoted phrase in a short query: every result must contain it. */
  readonly required: boolean;
  /** How many times the concept occurs in the query. */
  count: number;
  /**
   * How much a match counts, 1–3: in a long query, words of the title and words written as code
   * (backticks, stack frames, exception names, compound identifiers) count more than the prose
   * around them (see query-understand.ts). Always 1 in short queries.
   */
  weight: number;
}

export interface ParsedQuery {
  readonly groups: readonly TermGroup[];
  readonly long: boolean;
}

export interface ParseOptions {
  /** Weigh the groups of a long query by where they occur (title, code); default true. */
  readonly weighLong?: boolean;
  /** How a long query's words are weighed and which are left out (`search.ranking.longTerms`); default LONG_TERM_DEFAULTS. */
  readonly longTerms?: LongTermOptions | undefined;
  /**
   * Whether the index defines a name (case-insensitive), for `longTerms.fences`: a word only the
   * text's code blocks hold counts as code when the project defines it, and is left out when not.
   */
  readonly defined?: ((name: string) => boolean) | undefined;
  /** What becomes of each stack-trace frame of a long query (query-understand.ts `frames`); default: all kept. */
  readonly frames?: ((frame: Frame) => FrameFate) | undefined;
  /** A short query's hyphenated compound also as one identifier (`search.ranking.hyphenJoined`); default true. */
  readonly hyphenJoined?: boolean | undefined;
}

/** The weighing of a long query's groups (`search.ranking.longTerms`, docs/DESIGN.md "Query processing"). */
export interface LongTermOptions {
  /** Added to the weight of a group in the title. Default 1. */
  readonly title: number;
  /** Added to the weight of a group written as code. Default 1. */
  readonly code: number;
  /** Leave out the words of the pull-request and issue process (LONG_META_WORDS) unless written as code. Default false. */
  readonly metaWords: boolean;
  /** Added to the weight of a group the text repeats (twice or more). Default 0. */
  readonly repeated?: number | undefined;
  /** The user's code blocks: names the project defines count as code, the rest (local names) are left out (needs `defined`). Default false. */
  readonly fences?: boolean | undefined;
  /** A word or identifier written as code gets `code` only when the project defines it (needs `defined`; phrases and paths keep it). Default false. */
  readonly codeDefined?: boolean | undefined;
}

export const LONG_TERM_DEFAULTS: LongTermOptions = { title: 1, code: 1, metaWords: false, repeated: 0 };

/** Most a group's weight reaches with the default weighing (its phrase is repeated this often in the FTS5 expression). */
export const MAX_GROUP_WEIGHT = 3;
/** Most a long query's group weight reaches when `longTerms` weighs title or code words higher. */
export const MAX_LONG_GROUP_WEIGHT = 5;

/**
 * Words of the pull-request and issue process, not of the code (`longTerms.metaWords`): "Fixes",
 * "PR", "reported", "thanks". The tuning half's misses had them carry `runtests.sh` and
 * `versioneer.py` into the top 5 (bench/long-terms.ts).
 */
export const LONG_META_WORDS: ReadonlySet<string> = new Set(
  ('fixes fixed closes closed resolves resolved pr prs issue issues reported reporter thanks thank hi hello sorry cc ' +
    'currently also maybe probably actually really already someone').split(/\s+/),
);

const TOKEN_RE = /[\p{L}\p{N}_$]+(?:(?:\.|::|->|\/|-)[\p{L}\p{N}_$]+)*/gu;
const WORD_RE = /[\p{L}\p{N}_$]+/gu;
const QUOTE_RE = /"([^"]*)"/g;

/** Lowercase, letters, digits, `_` and `$` only (`İ` lowercases to `i` + a combining dot, which goes). */
const lower = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}_$]/gu, '');

function words(text: string): string[] {
  return [...text.matchAll(WORD_RE)].map((m) => lower(m[0])).filter((w) => w !== '');
}

function identifierGroup(token: string): Omit<TermGroup, 'count' | 'weight'> | undefined {
  const low = lower(token);
  if (isCompoundIdentifier(token)) {
    const parts = splitIdentifier(token);
    const alternatives: string[][] = [[low]];
    // the same name in another case style: `tree_ify` ↔ `treeIfy` (FTS5 keeps both whole)
    const joined = parts.join('');
    if (joined !== low && joined.length > 2) alternatives.push([joined]);
    if (parts.length > 1) alternatives.push(parts);
    return { key: `i:${low}`, raw: token, kind: 'identifier', alternatives, required: false };
  }
  if (low.replace(/[_$]/g, '').length < 2) return undefined;
  return { key: `w:${low}`, raw: token, kind: 'word', alternatives: [[low]], required: false };
}

/**
 * A run of CJK letters: the run whole (how FTS5 stores a run standing alone) OR the phrase of its
 * bigrams (how the `parts` field stores every run, see `cjkTerms`), so that `数据库` finds
 * `连接数据库失败`. A single character is searched as itself.
 */
function cjkGroup(run: string): Omit<TermGroup, 'count' | 'weight'> {
  const bigrams = cjkBigrams(run);
  const alternatives = bigrams.length > 1 ? [[run], bigrams] : [[run]];
  return { key: `w:${run}`, raw: run, kind: 'word', alternatives, required: false };
}

/** The words of a phrase as the index stores them: CJK runs as their bigrams. */
function phraseWords(ws: readonly string[]): string[] {
  return ws.flatMap((w) => (hasCjk(w) ? cjkPieces(w).flatMap((p) => (p.cjk ? cjkBigrams(p.text) : [p.text])) : [w]));
}

/** The groups of a token with CJK letters: each CJK run, and each other piece as a word or identifier. */
function cjkTokenGroups(token: string): Array<Omit<TermGroup, 'count' | 'weight'>> {
  const out: Array<Omit<TermGroup, 'count' | 'weight'>> = [];
  for (const segment of token.split(/\.|::|->|\/|-/)) {
    for (const piece of cjkPieces(segment)) {
      const g = piece.cjk ? cjkGroup(piece.text) : identifierGroup(piece.text);
      if (g && !(g.kind === 'word' && STOP_WORDS.has(g.alternatives[0]![0]!))) out.push(g);
    }
  }
  return out;
}

/**
 * Two adjacent plain words may be one identifier written apart: `open database` → `opendatabase`,
 * which is how FTS5 stores `openDatabase` and `OpenDatabase`. Added as optional groups; a pair
 * the index does not contain is dropped by term selection.
 */
function addJoinedPairs(text: string, add: (g: Omit<TermGroup, 'count' | 'weight'>) => void): void {
  const tokens = [...text.matchAll(TOKEN_RE)].map((m) => m[0]);
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i]!;
    const b = tokens[i + 1]!;
    if (!/^[A-Za-z]{2,}$/.test(a) || !/^[A-Za-z]{2,}$/.test(b) || isCompoundIdentifier(a) || isCompoundIdentifier(b)) continue;
    const la = a.toLowerCase();
    const lb = b.toLowerCase();
    if (STOP_WORDS.has(la) || STOP_WORDS.has(lb)) continue;
    add({ key: `j:${la}${lb}`, raw: `${a}${b[0]!.toUpperCase()}${b.slice(1)}`, kind: 'joined', alternatives: [[`${la}${lb}`]], required: false });
  }
}

/**
 * A hyphenated compound of a question may be an identifier written in prose: `many-to-one` →
 * `manytoone`, how FTS5 stores `ManyToOne` and `manyToOne` whole (`read-only` → `readOnly`,
 * `built-in` → `builtIn`). The phrase of its words stays; the joined form is an optional group of
 * its own, so the plan weighs it by its own (usually small) document frequency, where the phrase
 * counts as its most frequent word and a rare-level OR leaves it out. Dropped silently when absent.
 */
function addHyphenJoined(token: string, phrase: readonly string[], add: (g: Omit<TermGroup, 'count' | 'weight'>) => void): void {
  if (!/^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+$/u.test(token) || phrase.length < 2) return;
  const joined = phrase.join('');
  if (joined.length < 4) return;
  const raw = token.split('-').map((s, i) => (i === 0 ? s : `${s[0]!.toUpperCase()}${s.slice(1)}`)).join('');
  add({ key: `j:${joined}`, raw, kind: 'joined', alternatives: [[joined]], required: false });
}

/** Whether a group's words are all written as code (a phrase or path counts when all its words do). */
function writtenAsCode(g: TermGroup, code: ReadonlySet<string>): boolean {
  const main = g.alternatives[0]!;
  return main.every((w) => code.has(w)) || code.has(main.join(''));
}

/**
 * Weight of each group of a long query: 1, plus `title` when it occurs in the title, plus `code`
 * when it is written as code, plus `repeated` when the text repeats it (by default 1, 1, 0: at most 3).
 */
function weigh(groups: TermGroup[], title: string, code: ReadonlySet<string>, w: LongTermOptions, defined?: (name: string) => boolean): void {
  const titleWords = new Set(words(title));
  const rep = w.repeated ?? 0;
  const cap = w.title + w.code + rep > 2 ? MAX_LONG_GROUP_WEIGHT : MAX_GROUP_WEIGHT;
  for (const g of groups) {
    const main = g.alternatives[0]!;
    const inTitle = main.every((x) => titleWords.has(x)) || titleWords.has(main.join(''));
    const single = g.kind === 'word' || g.kind === 'identifier';
    const asCode = writtenAsCode(g, code) && (!w.codeDefined || !defined || !single || defined(main.join('')));
    g.weight = Math.max(1, Math.min(cap, Math.round(1 + w.title * Number(inTitle) + w.code * Number(asCode) + rep * Number(g.count > 1))));
  }
}

/** Leaves out the plain words of LONG_META_WORDS a long query does not write as code (all of them only when something else is left). */
function dropMetaWords(groups: Map<string, TermGroup>, code: ReadonlySet<string>): void {
  const meta = [...groups.values()].filter((g) => g.kind === 'word' && LONG_META_WORDS.has(g.alternatives[0]![0]!) && !writtenAsCode(g, code));
  if (meta.length < groups.size) for (const g of meta) groups.delete(g.key);
}

/**
 * The words only the user's code blocks hold: a name the project defines is written as code (the
 * returned set adds it), any other (a local variable, a library's name) is left out, unless
 * nothing else would be left.
 */
function sortFenceWords(groups: Map<string, TermGroup>, u: UnderstoodQuery, defined: (name: string) => boolean): ReadonlySet<string> {
  const code = new Set(u.code);
  const local: string[] = [];
  for (const g of groups.values()) {
    if (g.kind !== 'word' && g.kind !== 'identifier') continue;
    const name = g.alternatives[0]!.join('');
    if (!u.fenceOnly.has(name)) continue;
    if (defined(name)) code.add(name);
    else local.push(g.key);
  }
  if (local.length < groups.size) for (const k of local) groups.delete(k);
  return code;
}

/** Longer than 200 characters, or spanning lines: an issue body, a commit message, a stack trace. */
export function isLongQuery(input: string): boolean {
  return input.length > SHORT_QUERY_CHARS || /\n/.test(input.trim());
}

/**
 * Parses user text into term groups. Never produces FTS syntax: only words made of letters,
 * digits, `_` and `$` come out, so no input can cause an FTS5 syntax error downstream.
 * - `"quoted text"` → a phrase (required in short queries);
 * - `getUserName`, `user_name` → the whole identifier OR the phrase of its words;
 * - `os.path.join`, `a::b`, `src/store/db.ts`, `foo-bar` → the phrase of its segments, plus each segment;
 * - plain words lowercased; stop words dropped unless nothing else is left.
 */
export function parseQuery(input: string, options: ParseOptions = {}): ParsedQuery {
  const bytes = Buffer.byteLength(input, 'utf8');
  if (bytes > MAX_QUERY_BYTES) throw new EngineError('QUERY_TOO_LONG', { bytes, limit: MAX_QUERY_BYTES });
  const long = isLongQuery(input);
  const understood = long && options.weighLong !== false ? understandQuery(input, { frames: options.frames }) : undefined;
  const longTerms = options.longTerms ?? LONG_TERM_DEFAULTS;
  // a query that is all noise keeps its words rather than failing as empty
  const text = understood && /[\p{L}\p{N}]/u.test(understood.text) ? understood.text : input;
  const groups = new Map<string, TermGroup>();
  const stopped: TermGroup[] = [];
  const add = (g: Omit<TermGroup, 'count' | 'weight'>): void => {
    const existing = groups.get(g.key);
    if (existing) existing.count++;
    else groups.set(g.key, { ...g, count: 1, weight: 1 });
  };

  const rest = text.replace(QUOTE_RE, (_all, inner: string) => {
    const ws = words(inner);
    const indexed = phraseWords(ws);
    if (ws.length > 1 || indexed.length > 1) add({ key: `p:${ws.join(' ')}`, raw: inner, kind: 'phrase', alternatives: [indexed], required: !long });
    else if (ws.length === 1) {
      const g = identifierGroup(inner.match(WORD_RE)![0]);
      if (g) add({ ...g, required: !long });
    }
    return ' ';
  });

  for (const m of rest.matchAll(TOKEN_RE)) {
    const token = m[0];
    if (hasCjk(token)) {
      for (const g of cjkTokenGroups(token)) add(g);
      continue;
    }
    const segments = token.split(/\.|::|->|\/|-/).filter((s) => s !== '');
    if (segments.length > 1) {
      const kind: GroupKind = token.includes('/') ? 'path' : 'phrase';
      const phrase = segments.map(lower).filter((w) => w !== '');
      add({ key: `p:${phrase.join(' ')}`, raw: token, kind, alternatives: [phrase], required: false });
      if (!long && options.hyphenJoined !== false) addHyphenJoined(token, phrase, add);
      for (const s of segments) {
        const g = identifierGroup(s);
        if (g && !(g.kind === 'word' && STOP_WORDS.has(g.alternatives[0]![0]!))) add(g);
      }
      continue;
    }
    const g = identifierGroup(token);
    if (!g) continue;
    if (g.kind === 'word' && STOP_WORDS.has(g.alternatives[0]![0]!)) {
      stopped.push({ ...g, count: 1, weight: 1 });
      continue;
    }
    add(g);
  }
  if (understood && longTerms.metaWords) dropMetaWords(groups, understood.code);
  const code = understood && longTerms.fences && options.defined ? sortFenceWords(groups, understood, options.defined) : understood?.code;
  if (groups.size === 0) for (const g of stopped) add(g);
  if (!long) addJoinedPairs(rest, add);
  if (groups.size === 0) throw new EngineError('QUERY_EMPTY');
  if (understood) weigh([...groups.values()], understood.title, code ?? understood.code, longTerms, options.defined);
  return { groups: [...groups.values()], long };
}
