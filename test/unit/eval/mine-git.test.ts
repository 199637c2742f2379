/** Mining queries from git: message filters, log and diff parsing, and mapping hunks to functions. */
import { describe, expect, it } from 'vitest';
import { goldTargets } from '../../../src/eval/from-git.js';
import { cleanMessage, isInformative, parseHunks, parseLog } from '../../../src/eval/mine-git.js';
import type { FileOutline } from '../../../src/index.js';

describe('isInformative', () => {
  it.each([
    ['Fix race between the watcher and a scoped index pass', '', true],
    ['Add retry', 'Retries SQLITE_BUSY up to three times.', true],
    ['bump version to 1.2.3', '', false],
    ['v2.0.1', '', false],
    ['Release 4.0', 'Lots of changes in this release', false],
    ['Revert "Add retry"', 'This reverts commit abc.', false],
    ['fix typo', '', false],
    ['Fix typos in the parser comments and docs', '', false],
    ['format', '', false],
    ['chore(release): 1.0.0', '', false],
    ['update dependencies', '', false],
    ['wip', '', false],
    // fewer than four words in subject and body together
    ['Fix parser', '', false],
  ])('%s → %s', (subject, body, expected) => {
    expect(isInformative(subject, body)).toBe(expected);
  });
});

describe('parseLog', () => {
  it('reads commits, keeps modified files only, drops trailers and root commits', () => {
    const RS = '\u001e';
    const US = '\u001f';
    const out = [
      `${RS}aaa${US}ppp${US}Fix the retry loop${US}It spun forever.\nSigned-off-by: A <a@x>\n${US}\nM\tsrc/retry.ts\nA\tsrc/new.ts\nD\tsrc/old.ts\nM\ttest/retry.test.ts\n`,
      `${RS}bbb${US}${US}Initial commit${US}${US}\nA\tREADME.md\n`,
      `${RS}ccc${US}p1 p2${US}Merge-like with two parents${US}${US}\nM\ta.ts\n`,
    ].join('');
    expect(parseLog(out)).toEqual([
      { sha: 'aaa', parent: 'ppp', subject: 'Fix the retry loop', message: 'Fix the retry loop\n\nIt spun forever.', modified: ['src/retry.ts', 'test/retry.test.ts'] },
      // the first parent is the tree searched
      { sha: 'ccc', parent: 'p1', subject: 'Merge-like with two parents', message: 'Merge-like with two parents', modified: ['a.ts'] },
    ]);
    expect(cleanMessage(' Subject ', 'Co-authored-by: B <b@x>\n')).toBe('Subject');
  });
});

describe('parseHunks', () => {
  it('maps -U0 hunks to line ranges of the old version; an insertion marks the line it follows', () => {
    const diff = [
      'diff --git a/src/a.ts b/src/a.ts',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -10,3 +10,4 @@ function f() {',
      '@@ -40 +41 @@',
      '@@ -55,0 +57,2 @@',
      'diff --git a/src/new.ts b/src/new.ts',
      '--- /dev/null',
      '+++ b/src/new.ts',
      '@@ -0,0 +1,3 @@',
    ].join('\n');
    expect([...parseHunks(diff)]).toEqual([['src/a.ts', [[10, 12], [40, 40], [55, 55]]]]);
  });
});

describe('goldTargets', () => {
  const outline = (path: string, symbols: Array<[string, string, number, number]>): FileOutline =>
    ({
      path,
      symbols: symbols.map(([name, kind, startLine, endLine]) => ({ name, kind, startLine, endLine })),
    }) as unknown as FileOutline;

  it('names the innermost function or method a hunk touches, else the file alone', () => {
    const a = outline('src/a.ts', [
      ['Store', 'class', 1, 100],
      ['open', 'method', 10, 30],
      ['close', 'method', 40, 50],
      ['helper', 'function', 60, 70],
    ]);
    const b = outline('src/b.ts', [['VERSION', 'constant', 1, 1]]);
    const hunks = new Map<string, Array<[number, number]>>([
      ['src/a.ts', [[12, 14], [45, 46], [28, 29]]],
      ['src/b.ts', [[1, 1]]],
    ]);
    expect(goldTargets([a, b], hunks)).toEqual([
      // two hunks in open() make one target; the class around them is not the answer
      { path: 'src/a.ts', startLine: 10, endLine: 30 },
      { path: 'src/a.ts', startLine: 40, endLine: 50 },
      // no function touched: the file is the gold
      { path: 'src/b.ts' },
    ]);
  });
});
