import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIdentifier } from '../../../src/core/code-tokens.js';
import { highlightTerms, lightStem, lineScores, MARK_CLOSE, MARK_OPEN, makeSnippet } from '../../../src/search/snippet.js';

const WORD_RE = /[\p{L}\p{N}_$]+/gu;
/** The token test every snippet applies, asked afresh for each occurrence (what makeSnippet did before it remembered answers per token). */
const matchesAfresh = (token: string, terms: ReadonlySet<string>): boolean => terms.has(lightStem(token)) || (splitIdentifier(token).length > 1 && splitIdentifier(token).some((p) => terms.has(lightStem(p))));

describe('makeSnippet', () => {
  const text = ['import x from "y";', '', 'export function openDatabase(path) {', '  const db = new Database(path);', '  db.pragma("journal_mode = WAL");', '  return db;', '}', 'unrelated();'].join('\n');

  it('picks the window with the most matched terms and marks them', () => {
    const s = makeSnippet(text, 10, highlightTerms(['open', 'database', 'wal']), 3);
    expect(s.startLine).toBe(12);
    expect(s.text).toBe('export function «openDatabase»(path) {\n  const db = new «Database»(path);\n  db.pragma("journal_mode = «WAL»");');
  });

  it('matches stems and identifier parts', () => {
    expect(lightStem('parsing')).toBe(lightStem('parse'));
    const s = makeSnippet('function parseArguments() {}', 1, highlightTerms(['parsing', 'argument']), 2);
    expect(s.text).toBe('function «parseArguments»() {}');
  });

  it('cuts very long lines around the first match', () => {
    const s = makeSnippet(`${'x'.repeat(100)} needle ${'y'.repeat(1000)}`, 1, highlightTerms(['needle']), 1);
    expect(s.text.length).toBeLessThan(260);
  });

  it('marks every occurrence of a matching token and only those, however often a token repeats (property)', () => {
    const token = fc.constantFrom('parseConfig', 'parse', 'config', 'Parser', 'get_value', 'value', 'x', 'db', 'é', '42');
    const line = fc.array(token, { maxLength: 8 }).map((t) => t.join(' '));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.subarray(['parse', 'value', 'config', 'db']), fc.integer({ min: 1, max: 5 }), (lines, words, maxLines) => {
        const terms = highlightTerms(words);
        const s = makeSnippet(lines.join('\n'), 1, terms, maxLines);
        for (const out of s.text.split('\n')) {
          const plain = out.replaceAll(MARK_OPEN, '').replaceAll(MARK_CLOSE, '');
          const want = plain.replace(WORD_RE, (t) => (matchesAfresh(t, terms) ? `${MARK_OPEN}${t}${MARK_CLOSE}` : t));
          expect(out).toBe(want);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('lineScores (issue 19: one walk of the chunk instead of one per line)', () => {
  /** The rule it replaces: each line split off and matched on its own, a set of its hits. */
  const reference = (text: string, matches: (t: string) => boolean): number[] =>
    text.split(/\r?\n/).map((line) => {
      const seen = new Set<string>();
      for (const m of line.matchAll(/[\p{L}\p{N}_$]+/gu)) if (matches(m[0])) seen.add(m[0].toLowerCase());
      return seen.size;
    });

  it('gives every line the count of distinct matched tokens the per-line rule gives (property)', () => {
    const piece = fc.constantFrom('parseConfig', 'parse', 'PARSE', 'config', 'Parser', 'get_value', 'value', 'x', 'db', 'é', 'Ä', '42', '𝒳', '$el', ' ', '  ', '\n', '\r\n', '\r', '\n\n', '.', '(', '-', '\t');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.subarray(['parse', 'value', 'config', 'db', 'x']), (pieces, words) => {
        const text = pieces.join('');
        const terms = highlightTerms(words);
        const matches = (t: string): boolean => matchesAfresh(t, terms);
        expect(lineScores(text, text.split(/\r?\n/).length, matches)).toEqual(reference(text, matches));
      }),
      { numRuns: 500 },
    );
  });

  it('counts a token repeated on a line once, in any case, and leaves lines without hits at 0', () => {
    const text = 'parse Parse PARSE\n\nno hits here\r\nvalue db value';
    const terms = highlightTerms(['parse', 'value', 'db']);
    expect(lineScores(text, 4, (t) => matchesAfresh(t, terms))).toEqual([1, 0, 0, 2]);
  });
});
