import { describe, expect, it } from 'vitest';
import { highlightTerms, lightStem, makeSnippet } from '../../../src/search/snippet.js';

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
});
