import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveBackend, type WatchFunction } from '../../../src/watch/file-watcher.js';
import { startHarness, type WatchHarness } from './watch-harness.js';

const TREE = { 'src/a.ts': 'x', 'src/lib/b.ts': 'x', 'node_modules/p/i.js': 'x' };
/** Directories the walk enters in TREE: the root, src, src/lib. */
const ENTERED = 3;

let h: WatchHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface FakeWatch {
  readonly fn: WatchFunction;
  /** Latest handle and listener by watched path. */
  readonly byPath: Map<string, { handle: FSWatcher; listener: (event: string, filename: string | null) => void }>;
  readonly opened: () => number;
  readonly closed: () => number;
}

/** Real `fs.watch`, except that call number `failFrom` and later throw an error with `code`. */
function fakeWatch(failFrom = Infinity, code = 'ENOSPC'): FakeWatch {
  const byPath: FakeWatch['byPath'] = new Map();
  let calls = 0;
  let opened = 0;
  let closed = 0;
  const fn: WatchFunction = (path, options, listener) => {
    if (++calls >= failFrom) throw Object.assign(new Error(`${code}: simulated, watch '${path}'`), { code });
    const handle = watch(path, options, listener);
    opened++;
    handle.on('close', () => closed++);
    byPath.set(path, { handle, listener });
    return handle;
  };
  return { fn, byPath, opened: () => opened, closed: () => closed };
}

describe('falling back to polling', () => {
  it.each([
    ['ENOSPC', /max_user_watches/],
    ['EMFILE', /ulimit -n|max_user_instances/],
  ])('falls back when the OS refuses watches at start (%s), closing every watch and naming the limit', async (code, hint) => {
    const fake = fakeWatch(3, code);
    const w = await startHarness(TREE, { watchFn: fake.fn, pollIntervalMs: 100 });
    h = w;
    expect(w.watcher.backend).toBe('poll');
    expect(w.watcher.watches).toBe(0);
    expect(w.watcher.fallbackReason).toMatch(new RegExp(code));
    expect(w.watcher.fallbackReason).toMatch(hint);
    expect(w.warnings.map((x) => x.message)).toEqual(['watch: falling back to polling']);
    expect(w.warnings[0]?.data).toMatchObject({ from: 'directories', code });
    expect(fake.opened()).toBe(2);
    await w.until(() => fake.closed() === 2, 'every watch closed'); // FSWatcher emits 'close' on a later tick
    await w.until(() => w.rescans().filter((r) => r === 'poll').length >= 2, 'poll rescans');
    expect(w.rescans().every((r) => r === 'poll')).toBe(true); // nothing was missed at start
  });

  it('falls back at run time when a new directory cannot be watched, and asks for a rescan', async () => {
    const fake = fakeWatch(ENTERED + 1);
    const w = await startHarness(TREE, { watchFn: fake.fn });
    h = w;
    expect(w.watcher.watches).toBe(ENTERED);
    mkdirSync(w.abs('src/new'));
    await w.until(() => w.rescans().includes('watcher-error'), 'a watcher-error rescan');
    expect(w.watcher.backend).toBe('poll');
    expect(w.watcher.watches).toBe(0);
    expect(w.watcher.fallbackReason).toMatch(/ENOSPC/);
    await w.until(() => fake.closed() === ENTERED, 'every watch closed');
  });
});

describe('a root that cannot be watched', () => {
  it.each(['directories', 'recursive'] as const)('falls back to polling with the %s backend', async (backend) => {
    const w = await startHarness(TREE, { backend, watchFn: fakeWatch(1, 'ENOENT').fn });
    h = w;
    expect(w.watcher.backend).toBe('poll');
    expect(w.watcher.fallbackReason).toMatch(/cannot watch/);
  });
});

describe('recovering from watcher problems', () => {
  it('re-places a watch that errors, asks for a rescan, and keeps reporting its directory', async () => {
    const fake = fakeWatch();
    const w = await startHarness(TREE, { watchFn: fake.fn });
    h = w;
    fake.byPath.get(w.abs('src'))!.handle.emit('error', new Error('simulated watch failure'));
    await w.until(() => w.rescans().includes('watcher-error'), 'a watcher-error rescan');
    expect(w.warnings.map((x) => x.message)).toContain('watch: a directory watch failed; re-watching it and rescanning');
    expect(w.watcher.watches).toBe(ENTERED);
    w.write({ 'src/after.ts': 'x' });
    await w.until(() => w.paths().has('src/after.ts'), 'a file in the re-watched directory');
  });

  it('asks for a rescan when an event carries no file name', async () => {
    const fake = fakeWatch();
    const w = await startHarness(TREE, { watchFn: fake.fn });
    h = w;
    fake.byPath.get(w.root)!.listener('rename', null);
    await w.until(() => w.rescans().includes('unknown-path'), 'an unknown-path rescan');
  });

  it('reports an unexpected error in an event handler and rescans instead of throwing', async () => {
    const fake = fakeWatch(ENTERED + 1, 'EINVAL');
    const w = await startHarness(TREE, { watchFn: fake.fn });
    h = w;
    mkdirSync(w.abs('src/new'));
    await w.until(() => w.rescans().includes('watcher-error'), 'a watcher-error rescan');
    expect(w.warnings.map((x) => x.message)).toContain('watch: event handling failed; rescanning');
    expect(w.watcher.backend).toBe('directories');
  });
});

describe('resolveBackend', () => {
  it('picks per-directory watches on Linux and the native recursive watch elsewhere; explicit choices stand', () => {
    expect(resolveBackend('auto', 'linux')).toBe('directories');
    expect(resolveBackend('auto', 'darwin')).toBe('recursive');
    expect(resolveBackend('auto', 'win32')).toBe('recursive');
    expect(resolveBackend('recursive', 'linux')).toBe('recursive');
    expect(resolveBackend('poll', 'darwin')).toBe('poll');
  });
});
