import { describe, expect, it } from 'vitest';
import { orQuery, splitIdentifiers, WindowBm25 } from '../../../bench/bm25-windows.js';
import { guardRecord, guardRegressions } from '../../../bench/devset-guard.js';
import { formatReport, type DevRow } from '../../../bench/devset-report.js';
import { hashCommentAbove } from '../../../bench/doc-comments.js';
import { kindOf, namesGoldFile, sourceOf } from '../../../bench/mine-devset.js';
import { devRow } from '../../helpers/dev-row.js';

// Pieces of the issue-18 development benchmark: which mined commit messages count as issue-like
// texts, the fixed BM25-over-60-line-windows baseline (real in-memory SQLite FTS5), Ruby doc
// comments for the doc-comment kind, and the held-out regression guard.

describe('kindOf: commit message or issue-like text', () => {
  const prose = 'When the parser meets an empty header line it throws an error instead of skipping it, so every request that carries a trailing blank header fails. The fix reads the line, checks its length first and only then splits it on the colon, which is what the specification expects from a lenient reader.';

  it('calls a message issue-like when its body describes a problem in 40+ words', () => {
    expect(kindOf(`Fix header parsing\n\n${prose}`)).toBe('issue');
  });

  it('keeps short messages, reference-only bodies and squash-merge bullet lists as commit messages', () => {
    expect(kindOf('Fix header parsing\n\nFixes #123')).toBe('commit');
    expect(kindOf(`Fix header parsing\n\n${Array.from({ length: 20 }, (_, i) => `* fix: change number ${i} of the parser error handling`).join('\n')}`)).toBe('commit');
    expect(kindOf(prose)).toBe('commit'); // no body: the subject alone is what a commit message is
  });

  it('needs a problem, not just length', () => {
    const feature = 'This adds a new option for the router that lets users register a prefix once and reuse it across many groups of routes, keeping the configuration short and readable for large applications with dozens of nested modules and many teams working on them at once.';
    expect(kindOf(`Add router prefixes\n\n${feature}`)).toBe('commit');
  });
});

describe('namesGoldFile', () => {
  it('sees a gold file named as a word, whatever its case, and nothing else', () => {
    const gold = [{ path: 'src/click/termui.py', startLine: 1, endLine: 2 }];
    expect(namesGoldFile('Fix the pager in termui when TERM is dumb', gold)).toBe(true);
    expect(namesGoldFile('Fix the pager in TermUI.py', gold)).toBe(true);
    expect(namesGoldFile('Fix the pager in termuix and the terminal UI', gold)).toBe(false);
    expect(namesGoldFile('Fix io', [{ path: 'src/io.rs' }])).toBe(false); // stems of 2 letters are words anyway
  });
});

describe('bm25-windows baseline', () => {
  it('builds an OR query of distinct words, and none from punctuation', () => {
    expect(orQuery('Parse the header; parse it!')).toBe('"parse" OR "the" OR "header" OR "it"');
    expect(orQuery('?? !')).toBeUndefined();
    expect(orQuery('parseHeader')).toBe('"parseheader" OR "parse" OR "header"');
    expect(splitIdentifiers('new HTTPServer(parse_url)')).toBe('new HTTPServer HTTP Server(parse_url)');
  });

  it('ranks 60-line windows by BM25 and reports their line spans', () => {
    const filler = Array.from({ length: 130 }, (_, i) => `line ${i} of nothing special`);
    filler[75] = 'function parseHeader(line) { return line.split(":"); } // colon parser';
    const bm25 = WindowBm25.build([
      { path: 'src/a.js', text: filler.join('\n') },
      { path: 'src/b.js', text: 'const header = 1;\n' },
    ]);
    try {
      const hits = bm25.search('header colon parser', 10); // "header" only in the split parseHeader
      expect(hits[0]).toEqual({ path: 'src/a.js', startLine: 61, endLine: 120 });
      expect(hits.map((h) => h.path)).toContain('src/b.js');
      expect(bm25.search('zzz', 10)).toEqual([]);
    } finally {
      bm25.close();
    }
  });
});

describe('Ruby doc comments', () => {
  it('takes the run of # lines above a method, and refuses magic comments', () => {
    const lines = ['class A', '  # Returns the body of the response as a string.', '  # Reads it once.', '  def body', '  end'];
    expect(hashCommentAbove(lines, 3)).toEqual({ start: 1, end: 2, text: 'Returns the body of the response as a string.\nReads it once.' });
    expect(hashCommentAbove(['# frozen_string_literal: true', 'def x', 'end'], 1)).toBeUndefined();
    expect(hashCommentAbove(['x = 1', 'def x', 'end'], 1)).toBeUndefined();
  });
});

describe('held-out regression guard', () => {
  const row = (kind: 'commit' | 'doc', hit: boolean, i: number): DevRow => devRow(hit, { id: `${kind}${i}`, repo: 'a/b', split: 'held-out', kind });
  const rows = (kind: 'commit' | 'doc', hits: number, n: number): DevRow[] => Array.from({ length: n }, (_, i) => row(kind, i < hits, i));

  it('records per kind and passes an unchanged run', () => {
    const rec = guardRecord([...rows('commit', 80, 100), ...rows('doc', 10, 20)]);
    expect(rec.commit).toEqual({ n: 100, acc5: 0.8, mrr: 0.8, fn10: 0.8 });
    expect(rec.issue).toBeUndefined();
    expect(guardRegressions(rec, rec)).toEqual([]);
  });

  it('fails a kind that drops by more than max(0.02, 1/n), even when the overall mean would hide it', () => {
    const rec = guardRecord([...rows('commit', 80, 100), ...rows('doc', 10, 20)]);
    expect(guardRegressions(rec, guardRecord([...rows('commit', 78, 100), ...rows('doc', 9, 20)]))).toEqual([]);
    const worse = guardRegressions(rec, guardRecord([...rows('commit', 77, 100), ...rows('doc', 10, 20)]));
    expect(worse).toEqual(['commit acc5: 0.800 → 0.770 (-0.030)', 'commit mrr: 0.800 → 0.770 (-0.030)', 'commit fn10: 0.800 → 0.770 (-0.030)']);
    expect(guardRegressions(rec, guardRecord(rows('commit', 80, 100)))).toEqual(['doc: not measured']);
  });

  it('guards the development benchmark proper only: rows of a group (the large repositories) never enter its record', () => {
    const large = rows('commit', 0, 100).map((r) => ({ ...r, group: 'large' }));
    expect(guardRecord([...rows('commit', 80, 100), ...large]).commit).toEqual({ n: 100, acc5: 0.8, mrr: 0.8, fn10: 0.8 });
    expect(guardRecord([...rows('commit', 80, 100), ...large], 'large').commit).toEqual({ n: 100, acc5: 0, mrr: 0, fn10: 0 });
  });
});

describe('large-repository group', () => {
  const row = (hit: boolean, i: number, group?: string): DevRow => devRow(hit, { id: `q${i}`, repo: group ? 'big/repo' : 'small/repo', ...(group ? { group } : {}) });

  it('is reported in tables of its own, never mixed into the per-kind numbers', () => {
    const text = formatReport(new Map([['default', [row(true, 1), row(true, 2), row(false, 3, 'large'), row(false, 4, 'large')]]]), ['tune'], 'default');
    const [proper, large] = text.split('== LARGE REPOSITORIES tune:');
    expect(proper).toMatch(/== tune: doc-comment sentences → their function \(1 repositories\)\n.*\ndefault\s+2\s+1\.000\s+1\.000\s+1\.000/);
    expect(large).toMatch(/doc-comment sentences → their function \(1 repositories\)\n.*\ndefault\s+2\s+0\.000\s+0\.000\s+0\.000/);
  });

  it('reports issue-like texts whose fix changed one file in a table of their own', () => {
    const issue = (hit: boolean, i: number, goldFiles: number): DevRow => ({ ...row(hit, i), kind: 'issue', goldFiles });
    const text = formatReport(new Map([['default', [issue(true, 1, 1), issue(false, 2, 1), issue(false, 3, 3), issue(false, 4, 2)]]]), ['tune'], 'default');
    expect(text).toMatch(/== tune: issue-like long texts → fixed functions \(1 repositories\)\n.*\ndefault\s+4\s+0\.250/);
    expect(text).toMatch(/-- tune: issue-like texts whose fix changed one file \(Acc@k then asks for that file only\)\n.*\ndefault\s+2\s+0\.500/);
    expect(formatReport(new Map([['default', [issue(false, 3, 3)]]]), ['tune'], 'default')).not.toMatch(/changed one file/);
  });

  it('records the pull request a squash-merged text comes from, else the commit', () => {
    expect(sourceOf('iterative/dvc', 'repro: fix stage collection (#10654)', 'abc123')).toBe('https://github.com/iterative/dvc/pull/10654');
    expect(sourceOf('getmoto/moto', 'S3: list_objects ignores the delimiter', 'abc123')).toBe('https://github.com/getmoto/moto/commit/abc123');
  });
});
