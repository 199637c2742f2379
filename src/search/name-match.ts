/**
 * The name match (issue 18, docs/DESIGN.md "Ranking II"): how well a one-sentence description of a
 * function names it. A doc comment's first sentence says in words what the identifier says in
 * camelCase ("Returns the primary key of an entity" → `getPrimaryKey`, "Check whether a selector
 * is standard" → `isStandardSelector`), so the words of each definition's split name are matched
 * against the query's words: the same word up to a light suffix (`keys`/`key`, `getter`/`get`), a
 * leading verb by the verbs a description uses for it (`returns`/`get`, `whether`/`is`). The score
 * is the Dice overlap of the two word sets, 2·matched / (name words + query words), of the best
 * definition in a chunk (a chunk of several small definitions holds several names). Pure.
 */
import { splitIdentifier } from '../core/code-tokens.js';
import { STOP_WORDS } from './stop-words.js';

/** The words a description uses for a name's leading verb (`get…` is what "Returns …" describes). */
const VERB_WORDS: ReadonlyMap<string, readonly string[]> = new Map(Object.entries({
  get: ['return', 'retriev', 'fetch', 'obtain', 'read', 'look', 'lookup', 'give'],
  is: ['check', 'whether', 'determin', 'test', 'tell', 'if', 'verifi'],
  has: ['check', 'whether', 'determin', 'contain', 'if'],
  can: ['check', 'whether', 'determin', 'if', 'allow'],
  should: ['check', 'whether', 'determin', 'if'],
  create: ['make', 'build', 'new', 'construct', 'generat', 'instanti'],
  make: ['creat', 'build', 'new', 'construct', 'generat'],
  build: ['creat', 'make', 'construct', 'generat'],
  to: ['convert', 'transform', 'serializ', 'turn'],
  set: ['assign', 'updat', 'chang', 'store'],
  find: ['search', 'look', 'lookup', 'locat', 'return', 'get'],
  resolve: ['find', 'determin', 'comput', 'return'],
  normalize: ['normalis', 'canonic', 'clean'],
  parse: ['pars', 'read', 'extract'],
  validate: ['check', 'verifi', 'ensur', 'assert'],
  remove: ['delet', 'drop', 'strip', 'clear'],
  add: ['append', 'insert', 'push', 'regist'],
  init: ['initi', 'initialis', 'setup', 'prepar'],
}));

/**
 * A word's comparable form: lower case, a plural or verb ending off (`returns` → `return`,
 * `entities` → `entity`, `classes` → `class`, `created` → `creat`); words of 3 letters stay.
 */
export function nameStem(word: string): string {
  const w = word.toLowerCase();
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(?:s|x|z|ch|sh)es$/.test(w) && w.length > 5) return w.slice(0, -2);
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3);
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2);
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** Two stems match when equal, or when one extends the other by at most 3 letters (`get`/`getter`, `col`/`column`, 3+ letters). */
function close(a: string, b: string): boolean {
  if (a === b) return true;
  const [s, l] = a.length <= b.length ? [a, b] : [b, a];
  return s.length >= 3 && l.length - s.length <= 3 && l.startsWith(s);
}

/** The words of a description that can name something: split, lower case, function words out (but `if`, `whether`: they name `is…`, `has…`). */
export function queryWords(query: string): string[] {
  const out = new Set<string>();
  for (const m of query.matchAll(/[A-Za-z][A-Za-z0-9]*/g)) {
    for (const w of splitIdentifier(m[0])) if (w.length >= 2 && (!STOP_WORDS.has(w) || w === 'if' || w === 'whether')) out.add(w);
  }
  return [...out];
}

/** The query side of the match: the stems of `queryWords`. */
export function queryNameWords(query: string): string[] {
  return [...new Set(queryWords(query).map(nameStem))];
}

/** The name verbs the words imply (`returns` → get, find, resolve): what a name list looks up besides the words. */
export function impliedVerbs(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const [verb, said] of VERB_WORDS) if (words.some((w) => said.some((v) => w.startsWith(v)))) out.push(verb);
  return out;
}

/** Words that join a name's others (`ManyToOne`, `sizeOfList`): not what a description must say. */
const JOINERS: ReadonlySet<string> = new Set(['a', 'an', 'the', 'to', 'of', 'by', 'in', 'on', 'at', 'for', 'and', 'or', 'from', 'with', 'as']);

/**
 * The name side: the distinct lower-cased words of an identifier (`getPrimaryKey` → get, primary,
 * key), the words that join others out but for the first (`ManyToOne` → many, one; `toJSON` → to, json).
 */
export function identifierWords(name: string): string[] {
  const words = splitIdentifier(name).filter((w) => /[a-z]/.test(w));
  return [...new Set(words.filter((w, i) => i === 0 || !JOINERS.has(w)))];
}

/**
 * The split words of names and the word decisions of one query, each worked out once (issue 19,
 * natlat): a blend scores ~100 candidates whose names repeat (a class's methods, a file's chunks),
 * and `nameWeights` and `bestName` split and compare the same names again. Same answers as
 * without it; made per search, never shared between queries.
 */
export class NameMemo {
  private readonly split = new Map<string, string[]>();
  /** By query stem, then identifier word: bits 1/2 the answer as a name's first word (known/yes), 4/8 as a later one. */
  private readonly decided = new Map<string, Map<string, number>>();

  /** `identifierWords(name)`, split once. */
  words(name: string): string[] {
    let w = this.split.get(name);
    if (w === undefined) {
      w = identifierWords(name);
      this.split.set(name, w);
    }
    return w;
  }

  /** `names(q, w, i)`, decided once (only whether `w` leads the name matters). */
  names(q: string, w: string, i: number): boolean {
    let byWord = this.decided.get(q);
    if (byWord === undefined) this.decided.set(q, (byWord = new Map()));
    const bits = byWord.get(w) ?? 0;
    const known = i === 0 ? 1 : 4;
    const yes = known * 2;
    if ((bits & known) !== 0) return (bits & yes) !== 0;
    const d = names(q, w, i);
    byWord.set(w, bits | known | (d ? yes : 0));
    return d;
  }
}

/** Whether the query stem `q` names the identifier word `w` (its position `i` in the name: only the first may be a verb). */
function names(q: string, w: string, i: number): boolean {
  if (close(q, nameStem(w))) return true;
  const verbs = i === 0 ? VERB_WORDS.get(w) : undefined;
  return verbs !== undefined && verbs.some((v) => q.startsWith(v));
}

/**
 * The weight of each query word in the match: log(1 + N / (1 + n)), n of the N candidates having
 * a name the word names. A word most names carry (`schema` in a schema library) says little about
 * which one the description means.
 */
export function nameWeights(query: readonly string[], namesOf: ReadonlyArray<readonly string[]>, memo?: NameMemo): number[] {
  const wordsOf = namesOf.map((ns) => ns.map((n) => (memo ? memo.words(n) : identifierWords(n))));
  const named = memo ? (q: string, w: string, i: number): boolean => memo.names(q, w, i) : names;
  return query.map((q) => {
    const hits = wordsOf.filter((ns) => ns.some((ws) => ws.some((w, i) => named(q, w, i)))).length;
    return Math.log(1 + namesOf.length / (1 + hits));
  });
}

/**
 * The weighted Dice overlap of a query's name words and one identifier's words, 0–1: twice the
 * weight of the name words some query word names, over the weight of all name words and all query
 * words (a name word weighs as the query word naming it, else as the query words' mean). Without
 * `weights` every word weighs 1: 2·matched / (name words + query words).
 */
export function nameScore(query: readonly string[], name: string, weights?: readonly number[], memo?: NameMemo): number {
  const words = memo ? memo.words(name) : identifierWords(name);
  const named = memo ? (q: string, w: string, i: number): boolean => memo.names(q, w, i) : names;
  if (words.length === 0 || query.length === 0) return 0;
  const wq = weights ?? query.map(() => 1);
  const all = wq.reduce((a, b) => a + b, 0);
  if (all <= 0) return 0;
  const mean = all / wq.length;
  let matched = 0;
  let side = 0;
  words.forEach((w, i) => {
    let best = -1;
    query.forEach((q, j) => {
      if (wq[j]! > best && named(q, w, i)) best = wq[j]!;
    });
    matched += Math.max(0, best);
    side += best >= 0 ? best : mean;
  });
  return (2 * matched) / (side + all);
}

/** The best-named definition among `names`: its name and score (score 0, name undefined when none matches). */
export function bestName(query: readonly string[], names: readonly string[], weights?: readonly number[], memo?: NameMemo): { name: string | undefined; score: number } {
  let best: { name: string | undefined; score: number } = { name: undefined, score: 0 };
  for (const n of names) {
    const s = nameScore(query, n, weights, memo);
    if (s > best.score) best = { name: n, score: s };
  }
  return best;
}
