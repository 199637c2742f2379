import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, startHarness, type WatchHarness } from '../unit/watch/watch-harness.js';

/** A small repository with every kind of place the walk leaves out. */
const REPO: Record<string, string> = {
  '.gitignore': 'gen/\n',
  'src/a.ts': 'export const a = 1;\n',
  'src/lib/b.ts': 'export const b = 2;\n',
  'docs/guide.md': '# Guide\n',
  'node_modules/pkg/index.js': 'module.exports = 1;\n',
  'node_modules/pkg/lib/x.js': 'x\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/objects/ab/cdef': 'blob\n',
  'gen/out.ts': 'generated\n',
  'gen/deep/more.ts': 'generated\n',
  'dist/bundle.js': 'bundle\n',
  '.env': 'SECRET=1\n',
};
/** What the walk enters in REPO: the root, src, src/lib, docs. */
const ENTERED = 4;

let h: WatchHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function repo(overrides: Parameters<typeof startHarness>[1] = {}): Promise<WatchHarness> {
  // a link to a directory is never entered
  h = await startHarness(REPO, overrides, (root) => symlinkSync('src', join(root, 'src-link')));
  return h;
}

describe('directories backend', () => {
  it('watches exactly the directories the index walk enters: node_modules, .git, dist and gitignored ones get no watch', async () => {
    const w = await repo();
    expect(w.watcher.backend).toBe('directories');
    expect(w.watcher.watches).toBe(ENTERED);
    expect(w.watcher.fallbackReason).toBeUndefined();
  });

  it('reports created, modified, deleted and renamed files with their paths', async () => {
    const w = await repo();
    w.write({ 'src/new.ts': 'new\n' });
    await w.until(() => w.paths().has('src/new.ts'), 'a created file');
    writeFileSync(w.abs('src/a.ts'), 'export const a = 2;\n');
    await w.until(() => w.paths().has('src/a.ts'), 'a modified file');
    rmSync(w.abs('src/lib/b.ts'));
    await w.until(() => w.paths().has('src/lib/b.ts'), 'a deleted file');
    renameSync(w.abs('docs/guide.md'), w.abs('docs/manual.md'));
    await w.until(() => w.paths().has('docs/guide.md') && w.paths().has('docs/manual.md'), 'both sides of a rename');
    for (const batch of w.batches) {
      expect(batch.kind).toBe('paths');
      if (batch.kind === 'paths') expect([...batch.paths]).toEqual([...new Set(batch.paths)].sort());
    }
  });

  it('never reports files in ignored places or secrets', async () => {
    const w = await repo();
    w.write({
      'node_modules/pkg/new.js': 'x', 'node_modules/other/index.js': 'x', '.git/index': 'x', 'gen/new.ts': 'x', 'gen/deep/new.ts': 'x',
      'dist/new.js': 'x', '.env': 'SECRET=2', 'src/.env.local': 'S=1', 'src/logo.png': 'x', 'src/server.pem': 'x',
    });
    w.write({ 'src/sentinel.ts': 'x' }); // events arrive in order: once this is seen, the others would have been
    await w.until(() => w.paths().has('src/sentinel.ts'), 'the sentinel');
    expect([...w.paths()]).toEqual(['src/sentinel.ts']);
    expect(w.watcher.watches).toBe(ENTERED);
  });

  it('catches a nested directory created together with its files, and watches it', async () => {
    const w = await repo();
    mkdirSync(w.abs('src/feature/deep/deeper'), { recursive: true });
    writeFileSync(w.abs('src/feature/deep/deeper/c.ts'), 'x');
    writeFileSync(w.abs('src/feature/top.ts'), 'x');
    await w.until(() => w.paths().has('src/feature/deep/deeper/c.ts') && w.paths().has('src/feature/top.ts'), 'files of a new tree');
    expect(w.watcher.watches).toBe(ENTERED + 3);
    w.write({ 'src/feature/deep/later.ts': 'x' });
    await w.until(() => w.paths().has('src/feature/deep/later.ts'), 'a file in the new tree');
  });

  it('queues a removed directory and closes its watches', async () => {
    const w = await repo();
    rmSync(w.abs('src'), { recursive: true });
    await w.until(() => w.paths().has('src'), 'the removed directory');
    expect(w.watcher.watches).toBe(ENTERED - 2);
  });

  it('reports a renamed directory as its old path plus the files under the new one', async () => {
    const w = await repo();
    renameSync(w.abs('src'), w.abs('source'));
    await w.until(() => ['src', 'source/a.ts', 'source/lib/b.ts'].every((p) => w.paths().has(p)), 'a directory rename');
    expect(w.watcher.watches).toBe(ENTERED);
    w.write({ 'source/lib/c.ts': 'x', 'src/again.ts': 'x' });
    await w.until(() => w.paths().has('source/lib/c.ts') && w.paths().has('src/again.ts'), 'files in both places after the rename');
  });

  it('asks for a rescan when .gitignore changes, and watches what it no longer ignores', async () => {
    const w = await repo();
    writeFileSync(w.abs('.gitignore'), 'docs/\n');
    await w.until(() => w.rescans().includes('ignore-rules'), 'an ignore-rules rescan');
    expect(w.watcher.watches).toBe(ENTERED - 1 + 2); // docs/ ignored now; gen/ and gen/deep/ watched
    w.write({ 'gen/deep/now.ts': 'x', 'docs/hidden.md': 'x', 'src/sentinel.ts': 'x' });
    await w.until(() => w.paths().has('src/sentinel.ts'), 'the sentinel');
    expect(w.paths().has('gen/deep/now.ts')).toBe(true);
    expect(w.paths().has('docs/hidden.md')).toBe(false);
  });

  it('turns a 10,000-file storm into one rescan, with the pending paths bounded by stormPaths', async () => {
    const w = await repo({ debounceMs: 300, maxBatchWaitMs: 2000 });
    w.autoTake = false; // a consumer busy with something else while the storm lands
    mkdirSync(w.abs('src/storm'));
    let maxPending = 0;
    for (let d = 0; d < 100; d++) {
      const dir = w.abs(`src/storm/d${d}`);
      mkdirSync(dir);
      for (let f = 0; f < 100; f++) writeFileSync(join(dir, `f${f}.ts`), `export const v${f} = ${d};\n`);
      maxPending = Math.max(maxPending, w.watcher.pending().paths);
      await new Promise((resolve) => setImmediate(resolve)); // let events flow, as a real checkout would
    }
    await w.until(() => w.watcher.pending().rescan && w.dues > 0, 'a due storm rescan', 20_000);
    expect(maxPending).toBeLessThanOrEqual(1000);
    expect(w.watcher.take()).toEqual({ kind: 'rescan', reason: 'storm' });
    w.autoTake = true;
    await w.until(() => w.watcher.pending().paths === 0 && !w.watcher.pending().rescan, 'the queue to drain', 20_000);
    // events read after the rescan was taken come as a few trailing batches, never thousands
    expect(w.batches.length).toBeLessThanOrEqual(5);
    expect(w.watcher.watches).toBe(ENTERED + 101);
  });

  it('fires nothing after close()', async () => {
    const w = await repo();
    await w.watcher.close();
    w.write({ 'src/after-close.ts': 'x' });
    rmSync(w.abs('src/lib'), { recursive: true });
    await sleep(300);
    expect(w.batches).toEqual([]);
    expect(w.watcher.take()).toBeUndefined();
    expect(w.watcher.pending()).toEqual({ paths: 0, rescan: false });
  });
});

describe('recursive backend (forced on Linux)', () => {
  it('judges every event by the walk rules before queueing it', async () => {
    const w = await repo({ backend: 'recursive' });
    expect(w.watcher.backend).toBe('recursive');
    expect(w.watcher.watches).toBe(1);
    w.write({ 'node_modules/pkg/new.js': 'x', 'gen/deep/new.ts': 'x', '.env': 'S=2', 'dist/new.js': 'x', 'src/lib/new.ts': 'x' });
    mkdirSync(w.abs('src/fresh/inner'), { recursive: true });
    writeFileSync(w.abs('src/fresh/inner/f.ts'), 'x');
    w.write({ 'docs/sentinel.md': 'x' });
    await w.until(() => ['src/lib/new.ts', 'src/fresh/inner/f.ts', 'docs/sentinel.md'].every((p) => w.paths().has(p)), 'the watched files');
    expect([...w.paths()].filter((p) => /node_modules|gen\/|\.env|dist/.test(p))).toEqual([]);
    writeFileSync(w.abs('.gitignore'), '');
    await w.until(() => w.rescans().includes('ignore-rules'), 'an ignore-rules rescan');
  });
});

describe('poll backend', () => {
  it('places no watch and makes a poll rescan due every pollIntervalMs', async () => {
    const w = await repo({ backend: 'poll', pollIntervalMs: 100 });
    expect(w.watcher.backend).toBe('poll');
    expect(w.watcher.watches).toBe(0);
    await w.until(() => w.rescans().filter((r) => r === 'poll').length >= 2, 'two poll rescans');
    expect(w.paths().size).toBe(0);
  });
});
