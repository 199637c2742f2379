/**
 * Query expansion by term association (issue 17): a natural-language query's plain words are
 * joined by the code tokens the training pairs associate with them ("remove" → delete, unlink),
 * searched in a second FTS5 pass whose score is added at a low weight. The table is data
 * (models/expand/, built by train/expand-table.ts, loaded by src/engine/expansion-model.ts); what
 * is here is pure: its text format, the choice of expansion terms for a query, and their groups.
 */
import { MAX_GROUP_WEIGHT, type TermGroup } from './query-parse.js';

export const EXPANSION_FORMAT = 'scry-expand';
export const EXPANSION_FORMAT_VERSION = 1;

/** Most expansion terms one query gets (the strongest first). */
export const MAX_EXPANSION_TERMS = 12;

/** One associated code token and its strength relative to the word's best (0–1). */
export interface ExpansionTerm {
  readonly term: string;
  readonly weight: number;
}

export interface ExpansionTable {
  /** word → its associated tokens, strongest first. */
  readonly terms: ReadonlyMap<string, readonly ExpansionTerm[]>;
  /** sha256 prefix of the table file. */
  readonly version: string;
}

/** An expansion group: the token as an optional word group, the query word it came from, its strength. */
export interface ExpansionGroup {
  readonly group: TermGroup;
  readonly from: string;
  readonly strength: number;
}

/**
 * A crude English stem: the table leaves out a word's own inflections (the index's porter stemmer
 * already matches them). `removing`, `removes`, `removed`, `remove` → `remov`.
 */
export function stemOf(word: string): string {
  let w = word.toLowerCase();
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'ied', 'ers', 'er', 'es', 'ed', 'ly', 's']) {
    if (w.length - suffix.length >= 3 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length) + (suffix === 'ies' || suffix === 'ied' ? 'y' : '');
      break;
    }
  }
  return w.length > 3 && w.endsWith('e') ? w.slice(0, -1) : w;
}

/** Parses `terms.tsv` (`word<TAB>token:weight ...`); throws a message naming the bad line. */
export function parseExpansionTable(text: string, version: string): ExpansionTable {
  const terms = new Map<string, ExpansionTerm[]>();
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    const [word, list, extra] = line.split('\t');
    if (!word || list === undefined || extra !== undefined || !/^[a-z]+$/.test(word)) throw new Error(`terms.tsv line ${i + 1}: expected word<TAB>token:weight ...`);
    const out: ExpansionTerm[] = [];
    for (const item of list.split(' ')) {
      const m = /^([a-z]+):([01](?:\.\d+)?)$/.exec(item);
      if (!m) throw new Error(`terms.tsv line ${i + 1}: bad entry "${item}"`);
      out.push({ term: m[1]!, weight: Number(m[2]) });
    }
    terms.set(word, out);
  });
  return { terms, version };
}

/**
 * The expansion groups of a query's plain words: each word's tokens that are not already words of
 * the query (nor their inflections), a token reached from two words keeping its strongest, the
 * `MAX_EXPANSION_TERMS` strongest overall. Each group's weight (repetition in the FTS5
 * expression) is its strength in thirds, so that strength 1 counts 3 times as much as 0.33.
 */
export function expansionGroups(groups: readonly TermGroup[], table: ExpansionTable): ExpansionGroup[] {
  const queryWords = new Set(groups.flatMap((g) => g.alternatives.flat()));
  const queryStems = new Set([...queryWords].map(stemOf));
  const best = new Map<string, { from: string; strength: number }>();
  for (const g of groups) {
    if (g.kind !== 'word') continue;
    const word = g.alternatives[0]![0]!;
    for (const t of table.terms.get(word) ?? []) {
      if (queryWords.has(t.term) || queryStems.has(stemOf(t.term))) continue;
      const had = best.get(t.term);
      if (!had || t.weight > had.strength) best.set(t.term, { from: word, strength: t.weight });
    }
  }
  return [...best]
    .sort((a, b) => b[1].strength - a[1].strength || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_EXPANSION_TERMS)
    .map(([term, { from, strength }]) => ({
      from,
      strength,
      group: { key: `x:${term}`, raw: term, kind: 'word', alternatives: [[term]], required: false, count: 1, weight: Math.max(1, Math.min(MAX_GROUP_WEIGHT, Math.round(strength * MAX_GROUP_WEIGHT))) },
    }));
}
