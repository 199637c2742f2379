/**
 * Evidence before budgeting (seed 004 §8.4): duplicates dropped, overlapping or adjacent chunks of
 * one file merged without repeating lines, a cap per file, and the order a budget gives them up.
 */
import { describe, expect, it } from 'vitest';
import { citation, groupEvidence, mergeEvidence, type EvidenceInput } from '../../../src/context/evidence-merge.js';

/** A chunk whose text is `L<n>` for each of its lines, so merged text shows exactly which lines it holds. */
function chunk(path: string, startLine: number, endLine: number, extra: Partial<EvidenceInput> = {}): EvidenceInput {
  const lines = Array.from({ length: endLine - startLine + 1 }, (_, i) => `L${startLine + i}`);
  return { path, startLine, endLine, text: `${lines.join('\n')}\n`, ...extra };
}

describe('mergeEvidence', () => {
  it('merges overlapping chunks of one file into their union, each line once, at the better rank', () => {
    const { pieces } = mergeEvidence([chunk('a.ts', 30, 31), chunk('a.ts', 15, 25, { hash: 'h2', symbol: 'g' }), chunk('a.ts', 10, 20, { hash: 'h3', symbol: 'f' })]);
    expect(pieces.map(citation)).toEqual(['a.ts:30-31', 'a.ts:10-25']);
    const merged = pieces[1]!;
    expect(merged.text).toBe(Array.from({ length: 16 }, (_, i) => `L${10 + i}`).join('\n'));
    expect(merged).toMatchObject({ rank: 1, hashes: ['h2', 'h3'], symbols: ['g', 'f'], merged: 2, kind: 'chunk' });
  });

  it('merges adjacent chunks but not ones with a gap, nor chunks of different files', () => {
    const { pieces } = mergeEvidence([chunk('a.ts', 1, 3), chunk('a.ts', 4, 5), chunk('a.ts', 7, 8), chunk('b.ts', 9, 9)], { maxPiecesPerFile: 5 });
    expect(pieces.map(citation)).toEqual(['a.ts:1-5', 'a.ts:7-8', 'b.ts:9-9']);
  });

  it('takes a chain of overlaps as one run and keeps the best score', () => {
    const { pieces } = mergeEvidence([chunk('a.ts', 5, 9, { score: 0.2 }), chunk('a.ts', 1, 5, { score: 0.9 }), chunk('a.ts', 9, 12)]);
    expect(pieces.map(citation)).toEqual(['a.ts:1-12']);
    expect(pieces[0]!.score).toBe(0.9);
    expect(pieces[0]!.text.split('\n')).toHaveLength(12);
  });

  it('never merges signatures or summaries, nor a chunk whose text does not match its span', () => {
    const broken = { path: 'a.ts', startLine: 3, endLine: 9, text: 'only one line' };
    const { pieces } = mergeEvidence(
      [chunk('a.ts', 1, 4), chunk('a.ts', 12, 12, { kind: 'signature' }), broken, chunk('a.ts', 5, 5, { kind: 'summary' })],
      { maxPiecesPerFile: 9 },
    );
    expect(pieces.map((p) => `${p.kind} ${citation(p)}`)).toEqual(['chunk a.ts:1-4', 'signature a.ts:12-12', 'chunk a.ts:3-9', 'summary a.ts:5-5']);
  });

  it('drops later pieces with a content hash or (without hashes) a text already seen', () => {
    const { pieces, dropped } = mergeEvidence([
      chunk('a.ts', 1, 2, { hash: 'same' }),
      chunk('b.ts', 40, 41, { hash: 'same' }),
      { path: 'c.ts', startLine: 1, endLine: 1, text: 'x' },
      { path: 'd.ts', startLine: 7, endLine: 7, text: 'x' },
    ]);
    expect(pieces.map(citation)).toEqual(['a.ts:1-2', 'c.ts:1-1']);
    expect(dropped).toEqual([
      { path: 'b.ts', startLine: 40, endLine: 41, rank: 1, reason: 'duplicate' },
      { path: 'd.ts', startLine: 7, endLine: 7, rank: 3, reason: 'duplicate' },
    ]);
  });

  it('caps chunks per file in the first round (default 2); the rest come after every file\'s first round', () => {
    const input = [chunk('a.ts', 50, 51), chunk('a.ts', 1, 2), chunk('b.ts', 1, 1), chunk('a.ts', 20, 21), chunk('a.ts', 3, 3), chunk('c.ts', 9, 9)];
    const two = mergeEvidence(input);
    // a.ts:1-2 and a.ts:3 merge into one piece of rank 1, so a.ts:20-21 (rank 3) is over the cap: after c.ts (rank 5)
    expect(two.pieces.map(citation)).toEqual(['a.ts:50-51', 'a.ts:1-3', 'b.ts:1-1', 'c.ts:9-9', 'a.ts:20-21']);
    expect([...two.overCap].map(citation)).toEqual(['a.ts:20-21']);
    expect(two.dropped).toEqual([]);
    const one = mergeEvidence(input, { maxPiecesPerFile: 1 });
    expect(one.pieces.map(citation)).toEqual(['a.ts:50-51', 'b.ts:1-1', 'c.ts:9-9', 'a.ts:1-3', 'a.ts:20-21']);
  });

  it('caps chunks per file apart from signatures: signatures of a file never crowd out its code', () => {
    // the query named two symbols of a.ts: their signatures come first, yet both chunks of a.ts stay
    const input = [chunk('a.ts', 90, 90, { kind: 'signature' }), chunk('a.ts', 95, 95, { kind: 'signature' }), chunk('a.ts', 1, 30), chunk('a.ts', 40, 60), chunk('a.ts', 70, 80)];
    const { pieces, dropped } = mergeEvidence(input);
    expect(pieces.map((p) => `${p.kind} ${citation(p)}`)).toEqual(['signature a.ts:90-90', 'signature a.ts:95-95', 'chunk a.ts:1-30', 'chunk a.ts:40-60', 'chunk a.ts:70-80']);
    expect(dropped).toEqual([]);
    const signatures = [1, 2, 3].map((n) => chunk('b.ts', 100 + n, 100 + n, { kind: 'signature' }));
    expect([...mergeEvidence([...signatures, chunk('c.ts', 1, 1)]).overCap].map(citation)).toEqual(['b.ts:103-103']);
  });

  it('folds a signature into a kept chunk that contains it, which takes the better rank and the symbol', () => {
    const input = [chunk('a.ts', 12, 12, { kind: 'signature', symbol: 'Db' }), chunk('b.ts', 5, 5, { kind: 'signature', symbol: 'x' }), chunk('c.ts', 1, 3), chunk('a.ts', 10, 40, { symbol: 'open' })];
    const { pieces, dropped } = mergeEvidence(input);
    expect(pieces.map((p) => `${p.kind} ${citation(p)} rank ${p.rank} ${p.symbols.join(',')}`)).toEqual(['chunk a.ts:10-40 rank 0 open,Db', 'signature b.ts:5-5 rank 1 x', 'chunk c.ts:1-3 rank 2 ']);
    expect(dropped).toEqual([{ path: 'a.ts', startLine: 12, endLine: 12, rank: 0, reason: 'duplicate' }]);
    // a chunk over the cap absorbs nothing: the signature stays in the first round
    const capped = mergeEvidence([chunk('a.ts', 1, 2), chunk('a.ts', 50, 60), chunk('a.ts', 55, 55, { kind: 'signature' })], { maxPiecesPerFile: 1 });
    expect(capped.pieces.map((p) => `${p.kind} ${citation(p)}`)).toEqual(['chunk a.ts:1-2', 'signature a.ts:55-55', 'chunk a.ts:50-60']);
  });

  it('orders pieces for the budget by rank, with summaries after everything else', () => {
    const { pieces } = mergeEvidence([chunk('s.md', 1, 1, { kind: 'summary' }), chunk('a.ts', 2, 2), chunk('b.ts', 5, 5, { kind: 'signature' })]);
    expect(pieces.map(citation)).toEqual(['a.ts:2-2', 'b.ts:5-5', 's.md:1-1']);
  });
});

describe('groupEvidence', () => {
  it('groups by file in order of each file best piece, signatures first, then chunks in line order', () => {
    const { pieces } = mergeEvidence(
      [chunk('b.ts', 40, 42), chunk('a.ts', 1, 1), chunk('b.ts', 10, 11), chunk('b.ts', 2, 2, { kind: 'signature' })],
      { maxPiecesPerFile: 3 },
    );
    const groups = groupEvidence(pieces);
    expect(groups.map((g) => [g.path, g.pieces.map((p) => `${p.kind} ${p.startLine}`)])).toEqual([
      ['b.ts', ['signature 2', 'chunk 10', 'chunk 40']],
      ['a.ts', ['chunk 1']],
    ]);
  });
});
