/**
 * The strategy table (issue 20, seed 002 "Retrieval strategy"), the diff parser behind the `diff`
 * step, and pinned evidence in the pack: never dropped, whatever the budget, as long as a pack is
 * possible at all.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/core/errors.js';
import { buildContextPack } from '../../../src/context/context-pack.js';
import { parseDiff } from '../../../src/context/diff-hunks.js';
import { mergeEvidence, type EvidenceInput } from '../../../src/context/evidence-merge.js';
import { CONTEXT_TASKS, TASK_STRATEGIES, whyOf, type EvidenceSource } from '../../../src/context/task-strategy.js';
import { loadTokenCounter, type TokenCounter } from '../../../src/context/tokens.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});

const sources = (task: (typeof CONTEXT_TASKS)[number]): EvidenceSource[] => TASK_STRATEGIES[task].map((s) => s.source);

describe('TASK_STRATEGIES', () => {
  it('has steps for every task, each source once per task, with positive limits', () => {
    for (const task of CONTEXT_TASKS) {
      const list = sources(task);
      expect(list.length).toBeGreaterThan(0);
      expect(new Set(list).size).toBe(list.length);
      for (const step of TASK_STRATEGIES[task]) expect(step.limit).toBeGreaterThan(0);
    }
  });

  it('follows seed 002: fix starts from the failure, test from the tests, refactor from the users, explain from the calls', () => {
    expect(sources('fix').slice(0, 2)).toEqual(['failing-tests', 'failure-frames']);
    expect(sources('fix')).toEqual(expect.arrayContaining(['diagnostics', 'error-symbols', 'imports', 'tests', 'search']));
    expect(sources('test').slice(0, 3)).toEqual(['tests', 'test-helpers', 'similar-tests']);
    expect(sources('refactor').slice(0, 3)).toEqual(['importers', 'imports', 'callees']);
    expect(sources('explain').slice(0, 2)).toEqual(['selection-calls', 'referenced-types']);
    // seed 004 §8.5: signatures and nearest dependencies before the implementations of round 2
    expect(sources('complete').indexOf('imports')).toBeLessThan(sources('complete').indexOf('round-2'));
    // every strategy searches, after its structured first steps (last but for test, where the
    // query's words find the tests a commit changed better than imports do: bench/task-context.ts)
    for (const task of CONTEXT_TASKS) expect(sources(task).indexOf('search')).toBeGreaterThan(task === 'qa' ? 0 : 1);
    for (const task of CONTEXT_TASKS.filter((t) => t !== 'test')) expect(sources(task).at(-1)).toBe('search');
  });

  it('pins only what seed 002 "Pass 3" names: the failing tests and the frames\' functions', () => {
    const pinned = CONTEXT_TASKS.flatMap((t) => TASK_STRATEGIES[t].filter((s) => s.pinned).map((s) => `${t}:${s.source}`));
    expect(pinned).toEqual(['fix:failing-tests', 'fix:failure-frames']);
  });

  it('says why in words', () => {
    expect(whyOf('failing-tests', 'test_add')).toBe('failing test: test_add');
    expect(whyOf('imports', '')).toBe('imported by the current file');
  });
});

describe('parseDiff', () => {
  it('lists new-side lines added or next to a deletion, per file, deleted files left out', () => {
    const diff = [
      'diff --git a/src/a.ts b/src/a.ts',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -10,4 +10,5 @@ function f() {',
      ' keep',
      '-old',
      '+new',
      '+newer',
      ' keep',
      '--- a/gone.ts',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '-x',
      '-y',
    ].join('\n');
    expect(parseDiff(diff)).toEqual([{ path: 'src/a.ts', lines: [11, 12] }]);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => Array.isArray(parseDiff(`+++ b/x\n@@ -1 +1 @@\n${s}`))), { numRuns: 500 });
  });
});

describe('pinned evidence', () => {
  const chunk = (path: string, start: number, lines: number, extra: Partial<EvidenceInput> = {}): EvidenceInput => ({
    path,
    startLine: start,
    endLine: start + lines - 1,
    text: Array.from({ length: lines }, (_, i) => `line ${start + i} of ${path} with some words`).join('\n'),
    ...extra,
  });

  it('leads the priority order, is not capped per file, and absorbs an unpinned chunk inside it', () => {
    const merged = mergeEvidence([chunk('a.ts', 1, 3), chunk('b.ts', 1, 2), chunk('b.ts', 10, 2), chunk('b.ts', 20, 2, { pinned: true, why: 'failing test' }), chunk('b.ts', 20, 1)], { maxPiecesPerFile: 1 });
    expect(merged.pieces[0]).toMatchObject({ path: 'b.ts', startLine: 20, pinned: true, whys: ['failing test'] });
    expect(merged.dropped).toContainEqual({ path: 'b.ts', startLine: 20, endLine: 20, rank: 4, reason: 'duplicate' });
  });

  it('is never dropped: for any budget, the pack keeps every pinned piece or is TOO_LARGE', () => {
    const input = fc.record({
      pins: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 }),
      others: fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 8 }),
      budget: fc.integer({ min: 60, max: 1500 }),
    });
    fc.assert(
      fc.property(input, ({ pins, others, budget }) => {
        const evidence = [...others.map((n, i) => chunk(`o${i}.ts`, 1, n)), ...pins.map((n, i) => chunk(`p${i}.ts`, 1, n, { pinned: true, why: `pin ${i}` }))];
        try {
          const pack = buildContextPack({ task: { goal: 'fix it' }, evidence }, { counter, budget });
          const kept = pack.sections.evidence.flatMap((g) => g.pieces).filter((p) => p.pinned);
          expect(kept.length).toBe(pins.length);
          expect(counter.count(pack.text)).toBeLessThanOrEqual(budget);
        } catch (err) {
          if (!isEngineError(err) || err.code !== 'TOO_LARGE') throw err;
        }
      }),
      { numRuns: 120 },
    );
  });
});
