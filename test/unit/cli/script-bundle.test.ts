/**
 * The script bundle's code cache (src/cli/script-bundle.ts): real `vm.Script`s, real V8 code
 * caches, real files. A cache is used only when whole and made for this very bundle file; anything
 * else compiles from source and is rewritten, and the code runs the same either way.
 */
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadScriptBundle, type ScriptBundleOptions } from '../../../src/cli/script-bundle.js';
import { tempDir } from '../../helpers/temp.js';

/** A CommonJS bundle with enough functions for V8 to cache, exporting `main`. */
const BUNDLE = `'use strict';
const { basename } = require('node:path');
function words(n) { const out = []; for (let i = 0; i < n; i++) out.push('w' + i); return out; }
function total(list) { return list.reduce((a, w) => a + w.length, 0); }
module.exports = { main: (n) => total(words(n)) + ':' + basename(__filename), load: () => __scryImport('node:path').then((m) => typeof m.join) };
`;

let t: ReturnType<typeof tempDir>;
let opts: ScriptBundleOptions;
const cacheFiles = (): string[] => readdirSync(opts.cacheDir!).filter((f) => f.endsWith('.bin'));
const run = (): { out: string; cache: string; save: () => void } => {
  const b = loadScriptBundle(opts);
  return { out: (b.exports['main'] as (n: number) => string)(50), cache: b.cache, save: b.save };
};
const runAndSave = (): { out: string; cache: string } => {
  const { out, cache, save } = run();
  save();
  return { out, cache };
};

beforeEach(() => {
  t = tempDir('scry-script-bundle-');
  const file = join(t.dir, 'bundle.cjs');
  writeFileSync(file, BUNDLE);
  opts = { file, cacheDir: join(t.dir, 'cache'), command: 'search' };
});
afterEach(() => t.cleanup());

describe('the script bundle', () => {
  it('compiles from source once, then runs from the cache it saved', () => {
    const first = runAndSave();
    expect(first).toEqual({ out: '140:bundle.cjs', cache: 'missing' });
    expect(cacheFiles()).toHaveLength(1);
    const written = statSync(join(opts.cacheDir!, cacheFiles()[0]!)).mtimeMs;
    const second = runAndSave();
    expect(second).toEqual({ out: first.out, cache: 'hit' });
    // the first hits save again (with what they compiled besides), later ones write nothing
    const path = join(opts.cacheDir!, cacheFiles()[0]!);
    for (let i = 0; i < 4; i++) expect(runAndSave().cache).toBe('hit');
    const settled = statSync(path).mtimeMs;
    expect(settled).toBeGreaterThanOrEqual(written);
    expect(runAndSave().cache).toBe('hit');
    expect(statSync(path).mtimeMs).toBe(settled);
  });

  it('the bundle imports packages through the loader, from source and from the cache alike', async () => {
    const load = (): Promise<unknown> => (loadScriptBundle(opts).exports['load'] as () => Promise<unknown>)();
    runAndSave();
    const b = loadScriptBundle(opts);
    expect(b.cache).toBe('hit');
    await expect((b.exports['load'] as () => Promise<unknown>)()).resolves.toBe('function');
    await expect(load()).resolves.toBe('function');
  });

  it('each command has its own cache file', () => {
    runAndSave();
    opts = { ...opts, command: 'status' };
    expect(runAndSave().cache).toBe('missing');
    opts = { ...opts, command: '../../etc' };
    expect(runAndSave().cache).toBe('missing');
    expect(cacheFiles().map((f) => f.replace(/-[0-9a-f]+\.bin$/, '')).sort()).toEqual(['other', 'search', 'status']);
  });

  it('a damaged cache file is not handed to V8: compiled from source, rewritten, then a hit', () => {
    runAndSave();
    const path = join(opts.cacheDir!, cacheFiles()[0]!);
    const bytes = readFileSync(path);
    for (const at of [0, 9, 20, bytes.length - 1]) {
      const bad = Buffer.from(bytes);
      bad[at]! ^= 0x5a;
      writeFileSync(path, bad);
      expect(runAndSave()).toEqual({ out: '140:bundle.cjs', cache: 'damaged' });
      expect(run().cache).toBe('hit');
    }
    writeFileSync(path, bytes.subarray(0, 11));
    expect(runAndSave().cache).toBe('damaged');
  });

  it('a cache made for another state of the bundle file is stale, even when its text is the same length', () => {
    runAndSave();
    writeFileSync(opts.file, BUNDLE.replace("'w' + i", "'v' + i"));
    const r = runAndSave();
    expect(r).toEqual({ out: '140:bundle.cjs', cache: 'stale' });
    expect(run().cache).toBe('hit');
  });

  it('a cache directory others can write to is not used', () => {
    runAndSave();
    chmodSync(opts.cacheDir!, 0o777);
    expect(runAndSave().cache).toBe('off');
    chmodSync(opts.cacheDir!, 0o700);
    expect(run().cache).toBe('hit');
  });

  it('no cache directory: compiled from source, nothing written', () => {
    opts = { ...opts, cacheDir: undefined };
    const r = runAndSave();
    expect(r).toEqual({ out: '140:bundle.cjs', cache: 'off' });
  });
});
