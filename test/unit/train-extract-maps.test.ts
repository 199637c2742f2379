import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { extractMaps, insideRoot, sanitiseSourcePath } from '../../train/extract-maps.js';

const none = new Set<string>();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(root, join(d, e.name)));
    }
  };
  walk(root);
  return out.sort();
}

describe('source-map extraction (train/extract-maps.ts)', () => {
  it('strips schemes, ./ and ../ and keeps the rest of the path', () => {
    expect(sanitiseSourcePath('webpack://next/./src/shared/lib/segment.ts', '', none)).toEqual({ path: 'next/src/shared/lib/segment.ts' });
    expect(sanitiseSourcePath('../../src/scope.ts', '', none)).toEqual({ path: 'src/scope.ts' });
    expect(sanitiseSourcePath('file:///home/ci/proj/src/a b.tsx', '', none)).toEqual({ path: 'home/ci/proj/src/a_b.tsx' });
    expect(sanitiseSourcePath('index.mts', 'webpack:///lib/', none)).toEqual({ path: 'lib/index.mts' });
  });

  it('refuses declarations, other languages and hidden directories', () => {
    expect(sanitiseSourcePath('../src/types.d.ts', '', none)).toEqual({ refused: 'declaration' });
    expect(sanitiseSourcePath('../src/index.js', '', none)).toEqual({ refused: 'extension' });
    expect(sanitiseSourcePath('../.storybook/main.ts', '', none)).toEqual({ refused: 'unsafe-path' });
    expect(sanitiseSourcePath('../../..', '', none)).toEqual({ refused: 'extension' });
  });

  it('refuses anything that passes through node_modules, however the path is spelled', () => {
    expect(sanitiseSourcePath('webpack://app/./node_modules/lodash/get.ts', '', none)).toEqual({ refused: 'node_modules' });
    expect(sanitiseSourcePath('..\\..\\NODE_MODULES\\x\\y.ts', '', none)).toEqual({ refused: 'node_modules' });
    expect(sanitiseSourcePath('src/a.ts', '../node_modules/pkg', none)).toEqual({ refused: 'node_modules' });
  });

  it('refuses a source that names a held-out project, built in or listed', () => {
    expect(sanitiseSourcePath('webpack://rxjs/./src/internal/Observable.ts', '', none)).toEqual({ refused: 'held-out' });
    expect(sanitiseSourcePath('../packages/typeorm/src/index.ts', '', none)).toEqual({ refused: 'held-out' });
    expect(sanitiseSourcePath('../vendor/axios/lib/core.ts', '', new Set(['axios']))).toEqual({ refused: 'held-out' });
    expect(sanitiseSourcePath('../vendor/axios/lib/core.ts', '', none)).toEqual({ path: 'vendor/axios/lib/core.ts' });
  });

  it('never yields a path that leaves its root (property)', () => {
    const root = '/scratch/maps/node_modules/pkg';
    const segment = fc.oneof(fc.constantFrom('..', '.', '', 'node_modules', 'src', 'C:', '~', '%2e%2e', '\\..'), fc.string({ maxLength: 6 }));
    fc.assert(fc.property(fc.array(segment, { maxLength: 8 }), fc.constantFrom('', 'webpack://', 'file:///', '/'), (segs, scheme) => {
      const verdict = sanitiseSourcePath(`${scheme}${segs.join('/')}.ts`, '', none);
      if ('path' in verdict) {
        expect(insideRoot(root, verdict.path)).toBeDefined();
        expect(verdict.path.split('/')).not.toContain('..');
        expect(verdict.path.toLowerCase().split('/')).not.toContain('node_modules');
      }
    }));
    expect(insideRoot(root, '../other/x.ts')).toBeUndefined();
  });

  it('writes only permissive, non-held-out packages, with a +maps package.json', () => {
    const base = mkdtempSync(join(tmpdir(), 'scry-maps-'));
    dirs.push(base);
    const tree = join(base, 'node_modules');
    const pkg = (name: string, license: string, map: object): void => {
      mkdirSync(join(tree, name, 'dist'), { recursive: true });
      writeFileSync(join(tree, name, 'package.json'), JSON.stringify({ name, version: '1.2.3', license }));
      writeFileSync(join(tree, name, 'dist', 'index.js.map'), JSON.stringify(map));
    };
    const map = {
      version: 3,
      sources: ['../src/index.ts', '../src/types.d.ts', '../node_modules/dep/x.ts', '../../../../../etc/evil.ts', '../src/rxjs/op.ts'],
      sourcesContent: ['export const a = 1;', 'export type T = 1;', 'dep', 'evil', 'rx'],
    };
    pkg('good', 'MIT', map);
    pkg('@scope/fine', '(MIT OR Apache-2.0)', map);
    pkg('closed', 'UNLICENSED', map);
    pkg('rxjs', 'Apache-2.0', map);
    const out = join(base, 'maps', 'node_modules');
    const sum = extractMaps([tree], out, none);
    expect(files(out)).toEqual([
      '@scope/fine/etc/evil.ts', '@scope/fine/package.json', '@scope/fine/src/index.ts',
      'good/etc/evil.ts', 'good/package.json', 'good/src/index.ts',
    ]);
    expect(readdirSync(base).sort()).toEqual(['maps', 'node_modules']);
    expect(JSON.parse(readFileSync(join(out, 'good', 'package.json'), 'utf8'))).toMatchObject({ name: 'good', version: '1.2.3+maps', license: 'MIT' });
    expect(sum.skippedPackages).toEqual({ licence: 1, heldOut: 1, duplicate: 0 });
    expect(sum.refused).toMatchObject({ declaration: 2, node_modules: 2, 'held-out': 2 });
  });
});
