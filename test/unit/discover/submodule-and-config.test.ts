import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Skipped } from '../../../src/discover/walk.js';
import { walk } from '../../../src/discover/walk.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

describe('submodules and config validation', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  it("skips a submodule's .git file as well as .git directories", () => {
    writeTree(t.dir, { 'vendor/lib/.git': 'gitdir: ../../.git/modules/lib\n', 'vendor/lib/index.ts': 'export const x = 1;\n' });
    const files: string[] = [];
    const skipped: Skipped[] = [];
    walk({ root: t.dir, maxFileBytes: 1e6, ignore: [], denylist: { add: [], remove: [] } }, { file: (c) => files.push(c.path), skip: (s) => skipped.push(s) });
    expect(files).toEqual(['vendor/lib/index.ts']);
    expect(skipped).toContainEqual({ path: 'vendor/lib/.git', reason: 'denylist' });
  });

  it('rejects an overlap larger than half the window', async () => {
    await expect(resolveConfig({ root: t.dir, overrides: { chunk: { windowLines: 20, overlapLines: 15 } }, env: {} })).rejects.toThrow(/overlapLines/);
  });

  it('the plain-data defaults are exactly what the schema gives for an empty config', async () => {
    const { configSchema } = await import('../../../src/config/schema.js');
    const { DEFAULT_CONFIG } = await import('../../../src/config/defaults.js');
    expect(configSchema.parse({})).toEqual(DEFAULT_CONFIG);
  });
});

describe('secret names are file names', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  it('a credentials/ directory of source code is indexed; credentials files are not', () => {
    writeTree(t.dir, {
      'lib/credentials/provider.js': 'export function loadProvider() {}\n',
      'src/credentials.ts': 'export interface Credentials { user: string }\n',
      'deploy/credentials': '[default]\naws_secret_access_key = x\n',
      'deploy/credentials.json': '{}',
    });
    const files: string[] = [];
    const skipped: Skipped[] = [];
    walk({ root: t.dir, maxFileBytes: 1e6, ignore: [], denylist: { add: [], remove: [] } }, { file: (c) => files.push(c.path), skip: (s) => skipped.push(s) });
    expect(files).toEqual(['lib/credentials/provider.js', 'src/credentials.ts']);
    expect(skipped.map((s) => [s.path, s.reason])).toEqual([
      ['deploy/credentials', 'secret'],
      ['deploy/credentials.json', 'secret'],
    ]);
  });
});
