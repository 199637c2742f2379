/**
 * The diff parser takes untrusted input: random text must only ever produce an EngineError with a
 * stable code, and real patches (jsdiff's createTwoFilesPatch, and our own canonical diffs) must
 * apply to give exactly the new text. On disk, a diff with a conflicting file writes nothing.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineError, type ErrorCode } from '../../../src/core/errors.js';
import { commitChange, MAX_DIFF_EDIT_LENGTH, prepareChange, propose } from '../../../src/workspace/change.js';
import { applyUnifiedDiff, parseUnifiedDiff } from '../../../src/workspace/unified-diff.js';
import { tempDir } from '../../helpers/temp.js';
import { memorySource } from './memory-source.js';

const PARSE_CODES: readonly ErrorCode[] = ['PATCH_INVALID', 'TOO_LARGE'];
const APPLY_CODES: readonly ErrorCode[] = [...PARSE_CODES, 'PATCH_CONFLICT', 'FILE_NOT_FOUND', 'PATH_OUTSIDE_ROOT', 'PATH_DENIED'];

/** Runs `fn`; anything thrown must be an EngineError with one of `codes`. */
function onlyEngineErrors(fn: () => unknown, codes: readonly ErrorCode[]): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof EngineError)) throw new Error(`threw a non-EngineError: ${String(err)}`, { cause: err });
    expect(codes).toContain(err.code);
    expect(err.message.length).toBeGreaterThan(0);
  }
}

/** Lines that mean something to a diff parser, mixed with junk. */
const diffLineArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('--- a/f', '+++ b/f', '--- /dev/null', '+++ /dev/null', '--- a/g', '+++ b/g', '--- f', '+++ f', '--- a/../x', '+++ b/.env') },
  { weight: 4, arbitrary: fc.constantFrom('@@ -1,2 +1,2 @@', '@@ -1 +1 @@', '@@ -0,0 +1 @@', '@@ -1,0 +1,1 @@', '@@ -2,3 +2,1 @@ fn', '@@ -1,1 +0,0 @@', '@@', '@@ x @@') },
  { weight: 8, arbitrary: fc.constantFrom(' a', '-a', '+b', ' b', '-b', '+a', '', ' ', '\\ No newline at end of file', '+', '-') },
  { weight: 2, arbitrary: fc.constantFrom('diff --git a/f b/f', 'diff --git a/f b/g', 'new file mode 100644', 'deleted file mode 100644', 'old mode 100644', 'new mode 100755', 'rename from f', 'rename to g', 'copy from f', 'copy to g', 'index 123..456 100644', 'Binary files a/f and b/f differ', 'GIT binary patch', 'Index: f', '===================================================================', 'diff --git "a/f\\t" "b/f\\t"', '--- "a/f\\', 'similarity index 90%') },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
);

const diffLikeArb = fc.tuple(fc.array(diffLineArb, { maxLength: 40 }), fc.constantFrom('\n', '\r\n')).map(([lines, eol]) => lines.join(eol));

/** File texts: short lines from a small vocabulary (so diffs have context), LF or CRLF, with or without a final newline. */
const textArb = fc
  .tuple(fc.array(fc.constantFrom('a', 'b', 'c', 'foo', 'bar', '', '  x = 1;', '}', '{', 'é', '😀', ' ', '+', '-', '\\'), { maxLength: 30 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([lines, eol, final]) => (lines.length === 0 ? '' : lines.join(eol) + (final ? eol : '')));

describe('unified diff properties', () => {
  it('random strings never throw anything but PATCH_INVALID or TOO_LARGE', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 100 })), (s) => {
        onlyEngineErrors(() => parseUnifiedDiff(s), PARSE_CODES);
      }),
      { numRuns: 2000 },
    );
  });

  it('diff-like junk never throws anything but an EngineError with a stable code, parsing or applying', () => {
    fc.assert(
      fc.property(diffLikeArb, textArb, textArb, (diff, f, g) => {
        onlyEngineErrors(() => parseUnifiedDiff(diff), PARSE_CODES);
        onlyEngineErrors(() => applyUnifiedDiff(diff, memorySource({ f, g })), APPLY_CODES);
      }),
      { numRuns: 3000 },
    );
  });

  it('mutated real patches (lines dropped, added, replaced, flipped) only fail with stable codes, against any text', () => {
    const mutationArb = fc.tuple(fc.constantFrom('drop', 'insert', 'replace', 'flip'), fc.nat(), diffLineArb);
    fc.assert(
      fc.property(textArb, textArb, textArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (a, b, target, mutations) => {
        const lines = createTwoFilesPatch('a/f', 'b/f', a, b, undefined, undefined, { context: 2 }).split('\n');
        for (const [op, at, junk] of mutations) {
          const i = at % lines.length;
          if (op === 'drop') lines.splice(i, 1);
          else if (op === 'insert') lines.splice(i, 0, junk);
          else if (op === 'replace') lines[i] = junk;
          else lines[i] = lines[i]!.replace(/^[+-]/, (c) => (c === '+' ? '-' : '+'));
        }
        const diff = lines.join('\n');
        onlyEngineErrors(() => applyUnifiedDiff(diff, memorySource({ f: target })), APPLY_CODES);
        onlyEngineErrors(() => applyUnifiedDiff(diff, memorySource({ f: a })), APPLY_CODES);
      }),
      { numRuns: 3000 },
    );
  });

  it('round trip: a patch from createTwoFilesPatch applies to a and gives exactly b', () => {
    fc.assert(
      fc.property(textArb, textArb, fc.integer({ min: 0, max: 5 }), (a, b, context) => {
        fc.pre(a !== b);
        const patch = createTwoFilesPatch('a/src/f.txt', 'b/src/f.txt', a, b, undefined, undefined, { context });
        const [change] = applyUnifiedDiff(patch, memorySource({ 'src/f.txt': a }));
        expect(change).toMatchObject({ path: 'src/f.txt', status: 'modified', before: a });
        expect(change!.after).toBe(b);
      }),
      { numRuns: 1000 },
    );
  });

  it('round trip: the canonical diff of a change (minimal or one replacement hunk) re-applies to the same result and the same hash', () => {
    fc.assert(
      fc.property(textArb, textArb, textArb, (a, b, c) => {
        fc.pre(a !== b);
        const changes = [
          { path: 'm.txt', status: 'modified' as const, before: a, after: b },
          { path: 'new/n.txt', status: 'added' as const, before: '', after: c },
          { path: 'd.txt', status: 'deleted' as const, before: c, after: '' },
        ];
        // 0: every file takes the linear fallback (one replacement hunk), as a change too big for Myers does
        for (const maxEditLength of [MAX_DIFF_EDIT_LENGTH, 0]) {
          const proposal = propose(changes, new Map(), maxEditLength);
          const again = applyUnifiedDiff(proposal.diff, memorySource({ 'm.txt': a, 'd.txt': c }));
          expect(again).toEqual(changes);
          expect(propose(again, new Map(), maxEditLength).hash).toBe(proposal.hash);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a diff whose second file conflicts writes nothing, not even the first file', () => {
    const t = tempDir();
    try {
      const root = realpathSync(t.dir);
      const walk = { root, maxFileBytes: 1_000_000, ignore: [], denylist: { add: [], remove: [] } };
      let run = 0;
      fc.assert(
        fc.property(textArb, textArb, textArb, textArb, (a1, b1, a2, b2) => {
          fc.pre(a1 !== b1 && a2 !== b2);
          const dir = join(root, `run${run++}`);
          mkdirSync(dir);
          writeFileSync(join(dir, 'one.txt'), a1);
          writeFileSync(join(dir, 'two.txt'), a2);
          // the second patch is made against a text the file does not have
          const stale = `${a2}stale line\n`;
          const diff = createTwoFilesPatch(`a/run${run - 1}/one.txt`, `b/run${run - 1}/one.txt`, a1, b1) + createTwoFilesPatch(`a/run${run - 1}/two.txt`, `b/run${run - 1}/two.txt`, stale, b2);
          let prepared;
          try {
            prepared = prepareChange(walk, { kind: 'diff', diff });
          } catch (err) {
            expect(err).toBeInstanceOf(EngineError);
            expect(['PATCH_CONFLICT', 'PATCH_INVALID']).toContain((err as EngineError).code);
          }
          // when the stale hunk happens to apply anyway, the write is whole: both files change
          if (prepared) commitChange(prepared);
          const one = readFileSync(join(dir, 'one.txt'), 'utf8');
          const two = readFileSync(join(dir, 'two.txt'), 'utf8');
          if (prepared) expect([one, two]).toEqual([b1, prepared.writes[1]!.content!.toString()]);
          else expect([one, two]).toEqual([a1, a2]);
        }),
        { numRuns: 60 },
      );
    } finally {
      t.cleanup();
    }
  });
});
