/**
 * The shipped data files load from the bundled CLI (bin/scry.js → dist/cli/scry.js and its
 * chunks under dist/cli/chunks/): the built-in model (models/builtin/) and the query-expansion
 * table (models/expand/). A module bundled into a chunk once resolved `../../models/` from
 * dist/cli/chunks/ and answered MODEL_NOT_FOUND.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureFreshDist } from '../helpers/fresh-dist.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

describe('bundled CLI and the shipped models', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const scry = (...args: string[]): { code: number; out: string; err: string } => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', ...isolatedEnv(t.dir) }, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
  };

  beforeAll(() => {
    ensureFreshDist();
    t = tempDir('scry-bundled-models-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root, { 'src/cache.ts': 'export function dropStale(cache: Map<string, number>) {\n  cache.clear();\n}\n' });
  });
  afterAll(() => t.cleanup());

  it('embeds with the built-in model and searches hybrid', () => {
    writeFileSync(join(root, 'scry.config.json'), JSON.stringify({ embed: { provider: 'builtin' } }));
    const index = scry('index', '.', '--db', join(t.dir, 'builtin.db'));
    expect(index.err).not.toMatch(/MODEL_NOT_FOUND/);
    const r = scry('search', 'drop stale cache entries', '--db', join(t.dir, 'builtin.db'), '--json');
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { meta: { semantic: string } }).meta.semantic).toMatch(/^hybrid: builtin:scry-code-nbow/);
  });

  it('expands a natural-language query with the shipped table', () => {
    writeFileSync(join(root, 'scry.config.json'), JSON.stringify({ search: { ranking: { expansion: 0.3 } } }));
    expect(scry('index', '.', '--db', join(t.dir, 'lexical.db')).code).toBe(0);
    const r = scry('search', 'remove every zorblat', '--db', join(t.dir, 'lexical.db'), '--json');
    expect(r.code, r.out + r.err).toBe(0);
    const body = JSON.parse(r.out) as { meta: { expansion?: { terms: { term: string }[] } }; results: { path: string }[] };
    expect(body.meta.expansion?.terms.map((x) => x.term)).toContain('clear');
    expect(body.results[0]?.path).toBe('src/cache.ts');
  });
});
