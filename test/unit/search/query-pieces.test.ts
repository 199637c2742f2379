import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PIECES, queryPieces } from '../../../src/search/query-pieces.js';

describe('queryPieces', () => {
  it('cuts an issue text into its paragraphs and code block, without the template headings', () => {
    const issue = [
      '### Describe the bug',
      'Pushing to the remote fails when the cache directory is a symlink to another disk.',
      '',
      '### To Reproduce',
      'Run dvc push with a cache dir that points to a mounted volume and wait for the error.',
      '',
      '```',
      'Traceback (most recent call last):',
      '  File "dvc/remote/base.py", line 10, in push',
      '',
      'OSError: cross-device link',
      '```',
    ].join('\n');
    const pieces = queryPieces(issue);
    expect(pieces).toHaveLength(3);
    expect(pieces[0]).toBe('Pushing to the remote fails when the cache directory is a symlink to another disk.');
    expect(pieces[2]).toContain('OSError: cross-device link');
    expect(pieces[2]).toContain('dvc/remote/base.py');
    expect(pieces.join(' ')).not.toMatch(/Describe the bug|To Reproduce/);
  });

  it('gives no pieces for a text of one paragraph (the whole query is its piece)', () => {
    expect(queryPieces('The upload queue is dropped when the connection resets halfway through a batch.')).toEqual([]);
  });

  it('cuts a long paragraph at sentence ends', () => {
    const sentence = 'The scheduler keeps a reference to every finished job in its history table. ';
    const pieces = queryPieces(`${sentence.repeat(12)}\n\nSecond paragraph says something else entirely here.`);
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(600);
  });

  it('never returns more than MAX_PIECES pieces of at least four words, each from the query (property)', () => {
    const para = fc.array(fc.constantFrom('cache', 'remote', 'push', 'fails', 'the', 'when', 'a', '`x`', 'link.', 'Error!'), { minLength: 0, maxLength: 40 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(fc.array(para, { maxLength: 20 }), (paras) => {
        const pieces = queryPieces(paras.join('\n\n'));
        expect(pieces.length).toBeLessThanOrEqual(MAX_PIECES);
        for (const p of pieces) expect((p.match(/[\p{L}\p{N}_]+/gu) ?? []).length).toBeGreaterThanOrEqual(4);
      }),
    );
  });
});
