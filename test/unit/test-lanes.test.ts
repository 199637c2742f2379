/**
 * The test lanes (issue 16): `npm run test:unit` is pure and in-process and stays fast;
 * whatever starts a process or runs the whole engine (index passes over a repository) belongs
 * to test/integration. This test keeps the rule checkable: it reads the sources of test/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TEST_ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Test folders and their lanes: unit, integration, quality (quality + paraphrase), install. */
const LANES = ['unit', 'integration', 'quality', 'paraphrase', 'install'] as const;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const rel = (abs: string): string => relative(TEST_ROOT, abs).split('\\').join('/');

/** Module specifiers a file imports (static, dynamic, re-exports). */
function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** A file under test/ that starts processes itself: it imports child_process. */
const spawns = (source: string): boolean => importsOf(source).some((s) => s === 'node:child_process' || s === 'child_process');

describe('test lanes', () => {
  const all = files(TEST_ROOT);

  it('every test file belongs to one lane (test/unit, test/integration, test/quality or test/paraphrase, test/install)', () => {
    const stray = all.filter((f) => f.endsWith('.test.ts') && !LANES.some((lane) => rel(f).startsWith(`${lane}/`)));
    expect(stray.map(rel)).toEqual([]);
  });

  it('nothing under test/unit starts a process, imports a helper that does, or runs the whole engine', () => {
    const processHelpers = new Set(all.filter((f) => rel(f).startsWith('helpers/') && spawns(readFileSync(f, 'utf8'))));
    expect([...processHelpers].map(rel).sort()).toContain('helpers/cli.ts'); // the premise: the scan sees the spawning helpers
    const offenders: string[] = [];
    const self = fileURLToPath(import.meta.url); // its strings are the scan's fixtures
    for (const f of all.filter((x) => rel(x).startsWith('unit/') && x !== self)) {
      const source = readFileSync(f, 'utf8');
      if (spawns(source)) offenders.push(`${rel(f)}: imports child_process`);
      for (const spec of importsOf(source)) {
        if (!spec.startsWith('.')) continue;
        const target = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
        if (processHelpers.has(target)) offenders.push(`${rel(f)}: imports ${rel(target)}`);
      }
      if (/\bcreateEngine\s*\(/.test(source)) offenders.push(`${rel(f)}: calls createEngine (an engine test is an integration test)`);
    }
    expect(offenders).toEqual([]);
  });

  it('the scan itself catches each kind of import', () => {
    expect(spawns("import { spawn } from 'node:child_process';")).toBe(true);
    expect(spawns("const cp = await import('child_process');")).toBe(true);
    expect(spawns("import { spawnSync,\n  execFileSync } from 'node:child_process';")).toBe(true);
    expect(spawns("import { readFileSync } from 'node:fs';\n// child_process is not imported")).toBe(false);
    expect(importsOf("import '../helpers/cli.js';\nexport { x } from './y.js';")).toEqual(['../helpers/cli.js', './y.js']);
  });
});
