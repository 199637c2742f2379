import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { nodeWriteFs, writeAllOrNothing, type FileWrite, type WriteFs } from '../../../src/workspace/atomic-write.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const buf = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Every file under `dir`, relative, with its content (temp and backup files included). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(dir.length + 1)] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

/** The real file system, with the n-th call of one operation failing. */
function failingFs(op: keyof WriteFs, n: number): WriteFs {
  let calls = 0;
  return {
    ...nodeWriteFs,
    [op]: (...args: unknown[]) => {
      if (++calls === n) throw new Error(`injected ${op} failure`);
      return (nodeWriteFs[op] as (...a: unknown[]) => unknown)(...args);
    },
  };
}

describe('all-or-nothing writes', () => {
  let t: ReturnType<typeof tempDir>;
  let plan: FileWrite[];
  const original = { 'a.txt': 'A\n', 'b.txt': 'B\n', 'gone.txt': 'G\n' };

  beforeEach(() => {
    t = tempDir();
    writeTree(t.dir, original);
    plan = [
      { rel: 'a.txt', abs: join(t.dir, 'a.txt'), expected: buf('A\n'), content: buf('A2\n') },
      { rel: 'new/dir/c.txt', abs: join(t.dir, 'new/dir/c.txt'), expected: null, content: buf('C\n') },
      { rel: 'gone.txt', abs: join(t.dir, 'gone.txt'), expected: buf('G\n'), content: null },
      { rel: 'b.txt', abs: join(t.dir, 'b.txt'), expected: buf('B\n'), content: buf('B2\n') },
    ];
  });
  afterEach(() => t.cleanup());

  it('modifies, adds (creating directories) and deletes, leaving no temp or backup files', () => {
    chmodSync(join(t.dir, 'a.txt'), 0o755);
    writeAllOrNothing(plan.map((w) => (w.rel === 'a.txt' ? { ...w, mode: 0o755 } : w)));
    expect(snapshot(t.dir)).toEqual({ 'a.txt': 'A2\n', 'b.txt': 'B2\n', 'new/dir/c.txt': 'C\n' });
    expect(statSync(join(t.dir, 'a.txt')).mode & 0o777).toBe(0o755);
  });

  it('writes nothing when a file changed since the change was computed', () => {
    writeFileSync(join(t.dir, 'b.txt'), 'someone else\n');
    expect(() => writeAllOrNothing(plan)).toThrow(expect.objectContaining({ code: 'PATCH_CONFLICT', data: expect.objectContaining({ path: 'b.txt' }) }));
    expect(snapshot(t.dir)).toEqual({ ...original, 'b.txt': 'someone else\n' });
    writeFileSync(join(t.dir, 'b.txt'), 'B\n');
    writeTree(t.dir, { 'new/dir/c.txt': 'raced\n' });
    expect(() => writeAllOrNothing(plan)).toThrow(/was created since/);
  });

  it('rolls back the files already renamed when a later rename fails', () => {
    let err: unknown;
    try {
      writeAllOrNothing(plan, failingFs('rename', 3)); // a.txt and c.txt are in place and gone.txt is unlinked, then b.txt fails
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EngineError);
    expect(err).toMatchObject({ code: 'IO_ERROR', data: { path: 'b.txt', rolledBack: 3, rollbackFailed: [] } });
    expect((err as Error).message).toMatch(/injected rename failure; nothing was changed \(3 files already changed were restored\)/);
    expect(snapshot(t.dir)).toEqual(original);
    expect(existsSync(join(t.dir, 'new'))).toBe(false);
  });

  it('property: whichever step fails, the tree is exactly as before', () => {
    const ops: Array<keyof WriteFs> = ['writeNew', 'backup', 'rename', 'unlink', 'mkdir'];
    fc.assert(
      fc.property(fc.constantFrom(...ops), fc.integer({ min: 1, max: 4 }), (op, n) => {
        rmSync(t.dir, { recursive: true });
        writeTree(t.dir, original);
        let threw = false;
        try {
          writeAllOrNothing(plan, failingFs(op, n));
        } catch (e) {
          threw = true;
          expect(e).toBeInstanceOf(EngineError);
        }
        const after = snapshot(t.dir);
        // a failed unlink may leave a temp or backup file behind (cleanup is best effort); nothing else may
        const leftovers = Object.keys(after).filter((f) => /\.scry-[0-9a-f]+\.(tmp|bak)$/.test(f));
        if (op !== 'unlink') expect(leftovers).toEqual([]);
        const targets = Object.fromEntries(Object.entries(after).filter(([f]) => !leftovers.includes(f)));
        if (threw) expect(targets).toEqual(original);
        else expect(targets).toEqual({ 'a.txt': 'A2\n', 'b.txt': 'B2\n', 'new/dir/c.txt': 'C\n' });
      }),
      { numRuns: 40 },
    );
  });
});
