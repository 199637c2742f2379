import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

describe('index({ paths }): re-checking only what changed', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root, { '.gitignore': 'generated/\n*.log\n' });
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('indexes a new file, updates a changed one and removes a deleted one, without a walk', async () => {
    writeTree(root, { 'src/new-feature.ts': 'export function brandNewFeature() { return 42; }\n' });
    writeFileSync(join(root, 'src/parse/configLoader.ts'), 'export function loadYamlSettings() {}\n');
    rmSync(join(root, 'src/http/retry_policy.py'));
    const report = await engine.index({ paths: ['src/new-feature.ts', join(root, 'src/parse/configLoader.ts'), 'src/http/retry_policy.py'] });
    expect(report).toMatchObject({ filesSeen: 2, filesIndexed: 2, filesRemoved: 1 });
    expect((await engine.search('brandNewFeature')).results[0]!.path).toBe('src/new-feature.ts');
    expect((await engine.search('loadYamlSettings')).results[0]!.path).toBe('src/parse/configLoader.ts');
    expect((await engine.search('retry_with_backoff')).results).toHaveLength(0);
    // other files are untouched and still searchable
    expect((await engine.search('openDatabase')).results[0]!.path).toBe('src/db/open-database.ts');
    expect(engine.status().files).toBe(7); // six files and .gitignore
  });

  it('applies the same rules as a walk: ignore files, denylist, secrets', async () => {
    writeTree(root, { 'generated/out.ts': 'export const g = 1;\n', 'debug.log': 'x', '.env': 'TOKEN=abc', 'node_modules/x/index.js': 'x' });
    const report = await engine.index({ paths: ['generated/out.ts', 'debug.log', '.env', 'node_modules/x/index.js'] });
    expect(report.filesIndexed).toBe(0);
    expect(report.skipped).toEqual({ ignored: 2, secret: 1, denylist: 1 });
  });

  it('removes a file that became ignored', async () => {
    writeFileSync(join(root, '.gitignore'), 'generated/\n*.log\ndocs/\n');
    const report = await engine.index({ paths: ['docs/guide.md'] });
    expect(report).toMatchObject({ filesRemoved: 1 });
    expect((await engine.search('installation', { type: 'docs' })).results.map((r) => r.path)).toEqual([]);
  });

  it('refuses paths outside the root, and falls back to a full pass for a directory', async () => {
    await expect(engine.index({ paths: ['../outside.ts'] })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    await expect(engine.index({ paths: ['/etc/passwd'] })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    writeTree(root, { 'src/extra/a.ts': 'export const aaa_marker = 1;\n' });
    const report = await engine.index({ paths: ['src/extra'] });
    expect(report.filesSeen).toBe(8); // a full walk: 6 files, .gitignore, and the new one
    expect((await engine.search('aaa_marker')).results[0]!.path).toBe('src/extra/a.ts');
  });
});

describe('concurrent index() calls in one process', () => {
  it('run one after another instead of failing on the lock', async () => {
    const t = tempDir();
    try {
      const root = join(t.dir, 'repo');
      writeSmallRepo(root);
      const engine = await createEngine({ root, env: isolatedEnv(t.dir), config: { lockTimeoutMs: 0 } });
      writeTree(root, { 'src/late.ts': 'export const lateArrival = 1;\n' });
      const [a, b] = await Promise.all([engine.index(), engine.index({ paths: ['src/late.ts'] })]);
      expect(a.filesIndexed).toBe(7);
      expect(b).toMatchObject({ filesSeen: 1, filesIndexed: 0 }); // already indexed by the first pass
      engine.close();
    } finally {
      t.cleanup();
    }
  });
});
