import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCompanions, fileOrder, findCompanions, packageInits, type FileImports } from '../../../src/search/companions.js';

const py = (...sources: string[]): FileImports => ({ language: 'python', sources });
const settings = { boost: 0.5, anchors: 2, window: 20 };

describe('packageInits', () => {
  it('lists the __init__.py of each package above a file, nearest first', () => {
    expect(packageInits('conan/api/subapi/list.py')).toEqual(['conan/api/subapi/__init__.py', 'conan/api/__init__.py', 'conan/__init__.py']);
    expect(packageInits('setup.py')).toEqual([]);
  });
});

describe('findCompanions', () => {
  it('ties a file below the anchors by its strongest tie: an import either way or the package, then the directory; a test is no tie', () => {
    const order = ['pkg/a/core.py', 'pkg/b/run.py', 'pkg/a/helpers.py', 'pkg/b/cli.py', 'pkg/a/__init__.py', 'pkg/b/other.py', 'tests/test_core.py', 'pkg/c/unrelated.py'];
    const imports = new Map([
      ['pkg/a/core.py', py('.helpers')],
      ['pkg/b/cli.py', py('pkg.b.run')],
    ]);
    const found = findCompanions(order, imports, settings);
    expect(Object.fromEntries(found)).toEqual({
      'pkg/a/helpers.py': { anchor: 'pkg/a/core.py', tie: 'imported by it', weight: 1 },
      'pkg/b/cli.py': { anchor: 'pkg/b/run.py', tie: 'imports it', weight: 1 },
      'pkg/a/__init__.py': { anchor: 'pkg/a/core.py', tie: 'its package __init__', weight: 1 },
      'pkg/b/other.py': { anchor: 'pkg/b/run.py', tie: 'same directory', weight: 0.5 },
    });
  });

  it('prefers an import of a later anchor to the directory of an earlier one', () => {
    const found = findCompanions(['a/x.py', 'b/y.py', 'a/z.py'], new Map([['b/y.py', py('a.z')]]), settings);
    expect(found.get('a/z.py')).toEqual({ anchor: 'b/y.py', tie: 'imported by it', weight: 1 });
  });

  it('never makes an anchor, or a file past the window, a companion', () => {
    const order = ['a/x.py', 'b/__init__.py', 'c/y.py', 'c/z.py'];
    const imports = new Map([['a/x.py', py('c.y', 'c.z', 'b')]]);
    const found = findCompanions(order, imports, { ...settings, window: 3 });
    expect([...found.keys()]).toEqual(['c/y.py']);
  });

  it('finds nothing when the list has no file below the anchors', () => {
    expect(findCompanions(['a.py', 'b.py'], new Map([['a.py', py('b')]]), settings).size).toBe(0);
  });
});

describe('applyCompanions', () => {
  const rows = [
    { path: 'a.py', startLine: 1, score: 10 },
    { path: 'b.py', startLine: 1, score: 8 },
    { path: 'c.py', startLine: 1, score: 7 },
    { path: 'c.py', startLine: 30, score: 2 },
  ];

  it('raises every chunk of a companion by the same factor, says why, and re-sorts', () => {
    const out = applyCompanions(rows, new Map([['c.py', { anchor: 'a.py', tie: 'imported by it' as const, weight: 1 }]]), 0.2, 1);
    expect(out.map((r) => `${r.path}:${r.startLine}`)).toEqual(['a.py:1', 'c.py:1', 'b.py:1', 'c.py:30']);
    expect(out[1]!.score).toBeCloseTo(8.4);
    expect(out[1]!.why).toEqual(['companion of a.py: imported by it ×1.20']);
    expect(out[0]!.why).toBeUndefined();
  });

  it('is the identity at boost 0 or without companions', () => {
    expect(applyCompanions(rows, new Map([['c.py', { anchor: 'a.py', tie: 'imports it' as const, weight: 1 }]]), 0, 1)).toEqual(rows);
  });

  it('weighs a same-directory tie at half', () => {
    const out = applyCompanions(rows, new Map([['c.py', { anchor: 'a.py', tie: 'same directory' as const, weight: 0.5 }]]), 0.2, 1);
    expect(out.find((r) => r.path === 'c.py')!.score).toBeCloseTo(7.7);
    expect(out.find((r) => r.path === 'c.py')!.why).toEqual(['companion of a.py: same directory ×1.10']);
  });

  it('never lifts a companion past the anchors: its factor stops below the last anchor\'s best chunk', () => {
    const out = applyCompanions(rows, new Map([['c.py', { anchor: 'a.py', tie: 'imported by it' as const, weight: 1 }]]), 1, 2);
    expect(out.map((r) => `${r.path}:${r.startLine}`)).toEqual(['a.py:1', 'b.py:1', 'c.py:1', 'c.py:30']);
    expect(out[2]!.score).toBeLessThan(8);
    expect(out[2]!.score).toBeGreaterThan(7.99);
    expect(out[3]!.score).toBeCloseTo(2 * (8 / 7), 6);
    expect(applyCompanions(rows, new Map(), 1, 1)).toEqual(rows);
  });
});

describe('the companion step on any list', () => {
  const path = fc.constantFrom('p/a.py', 'p/b.py', 'p/__init__.py', 'q/c.py', 'tests/test_a.py', 'src/x.ts', 'src/index.ts', '', '../x.py');
  const row = fc.record({ path, startLine: fc.integer({ min: 1, max: 500 }), score: fc.double({ min: 0, max: 100, noNaN: true }) });
  const imports = fc.array(fc.tuple(path, fc.constantFrom('python', 'typescript', 'go', 'rust'), fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 })), { maxLength: 6 });

  it('never crashes, never makes an anchor a companion, keeps every row, raises only companions, and keeps the first files first', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), imports, fc.integer({ min: 1, max: 5 }), fc.double({ min: 0, max: 2, noNaN: true }), (rs, imp, anchors, boost) => {
        const sorted = [...rs].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.startLine - b.startLine);
        const map = new Map(imp.map(([p, language, sources]) => [p, { language, sources }]));
        const s = { boost, anchors, window: 20 };
        const found = findCompanions(fileOrder(sorted), map, s);
        for (const f of found.keys()) expect(fileOrder(sorted).slice(0, anchors)).not.toContain(f);
        const out = applyCompanions(sorted, found, boost, anchors);
        expect(out).toHaveLength(sorted.length);
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
        // no score falls, none rises past (1 + boost), and the first files stay first, in order
        const total = (xs: ReadonlyArray<{ score: number }>): number => xs.reduce((n, r) => n + r.score, 0);
        expect(total(out)).toBeGreaterThanOrEqual(total(sorted) - 1e-6);
        expect(total(out)).toBeLessThanOrEqual(total(sorted) * (1 + boost) + 1e-6);
        expect(fileOrder(out).slice(0, anchors)).toEqual(fileOrder(sorted).slice(0, anchors));
        for (const r of out) if (!found.has(r.path)) expect(r.why).toBeUndefined();
      }),
    );
  });
});
