import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyFrameFates, understandQuery } from '../../../src/search/query-understand.js';
import { frameFate, frameSuffixes, isOwnFrame, parseFrames, type Frame, type FrameFate } from '../../../src/search/traceback.js';

const TRACE = [
  'Loading the bundle fails with a KeyError',
  'Traceback (most recent call last):',
  '  File "/home/u/run.py", line 3, in <module>',
  '    main()',
  '  File "/opt/conda/lib/python3.10/site-packages/monai/bundle/scripts.py", line 812, in run',
  '    workflow.initialize()',
  '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl',
  '    return forward_call(*args, **kwargs)',
  '  File "<frozen importlib._bootstrap>", line 1050, in _gcd_import',
  'KeyError: \'network_def\'',
].join('\n');

const indexed = new Set(['monai/bundle/scripts.py', 'monai/networks/nets/unet.py']);
const own = (f: Frame): boolean => isOwnFrame(f, (p) => indexed.has(p));
const fate = (f: Frame): FrameFate => frameFate(f, (p) => indexed.has(p));
const dropFrames = (text: string, drop: (f: Frame) => boolean): string => applyFrameFates(text, (f) => (drop(f) ? 'drop' : 'keep'));

describe('parseFrames', () => {
  it('reads Python frames with the source line printed under each', () => {
    const frames = parseFrames(TRACE);
    expect(frames.map((f) => [f.func, f.lines])).toEqual([
      ['<module>', [2, 3]],
      ['run', [4, 5]],
      ['_call_impl', [6, 7]],
      ['_gcd_import', [8]],
    ]);
    expect(frames[1]!.path).toBe('/opt/conda/lib/python3.10/site-packages/monai/bundle/scripts.py');
  });

  it('reads JavaScript frames with and without a function', () => {
    const js = ['TypeError: x is undefined', '    at Parser.parse (/app/node_modules/acorn/dist/acorn.js:10:5)', '    at src/index.js:3:1', '    at async load (node:internal/modules/esm/loader:12:3)'].join('\n');
    expect(parseFrames(js).map((f) => [f.func, f.path])).toEqual([
      ['Parser.parse', '/app/node_modules/acorn/dist/acorn.js'],
      ['', 'src/index.js'],
      ['load', 'node:internal/modules/esm/loader'],
    ]);
  });
});

describe('frameSuffixes and isOwnFrame', () => {
  it('cuts a library path after site-packages, longest suffix first', () => {
    expect(frameSuffixes('/opt/conda/lib/python3.10/site-packages/monai/bundle/scripts.py')).toEqual(['monai/bundle/scripts.py', 'bundle/scripts.py', 'scripts.py']);
    expect(frameSuffixes('C:\\Users\\u\\proj\\src\\a.py')).toEqual(['C:/Users/u/proj/src/a.py', 'Users/u/proj/src/a.py', 'u/proj/src/a.py', 'proj/src/a.py', 'src/a.py', 'a.py']);
  });

  it('keeps the project installed in site-packages and a script outside any library; drops libraries and the runtime', () => {
    expect(parseFrames(TRACE).map(own)).toEqual([true, true, false, false]);
  });

  it('drops a JavaScript frame in node_modules or node internals, keeps the project', () => {
    const js = ['    at Parser.parse (/app/node_modules/acorn/dist/acorn.js:10:5)', '    at main (/app/src/index.js:3:1)', '    at load (node:internal/modules/esm/loader:12:3)'].join('\n');
    expect(parseFrames(js).map((f) => isOwnFrame(f, () => false))).toEqual([false, true, false]);
  });
});

describe('frameFate and applyFrameFates', () => {
  it('drops library frames, writes the project\'s with the index\'s path, keeps the rest', () => {
    expect(parseFrames(TRACE).map(fate)).toEqual(['keep', { path: 'monai/bundle/scripts.py' }, 'drop', 'drop']);
    const text = applyFrameFates(TRACE, fate);
    expect(text).toContain('  File "monai/bundle/scripts.py", line 812, in run');
    expect(text).not.toMatch(/site-packages|conda|torch/);
    // the path phrase and its words now are the index's: no `opt`, `conda`, `packages` groups
    const code = understandQuery(TRACE, { frames: fate }).code;
    for (const w of ['conda', 'packages', 'opt', 'python3']) expect(code.has(w)).toBe(false);
    for (const w of ['monai', 'bundle', 'scripts', 'run']) expect(code.has(w)).toBe(true);
  });
});

describe('dropFrames', () => {
  it('leaves out a library frame and its source line, so its words are not written as code', () => {
    const kept = dropFrames(TRACE, (f) => !own(f));
    expect(kept).not.toMatch(/_call_impl|forward_call|torch|importlib/);
    expect(kept).toMatch(/monai\/bundle\/scripts\.py/);
    const code = understandQuery(TRACE, { frames: (f) => (own(f) ? 'keep' : 'drop') }).code;
    expect(code.has('_call_impl')).toBe(false);
    expect(code.has('scripts')).toBe(true);
    // without the option every frame counts as code, as before
    expect(understandQuery(TRACE).code.has('_call_impl')).toBe(true);
  });

  const line = fc.oneof(
    fc.constantFrom('Traceback (most recent call last):', '  File "a/b.py", line 1, in f', '    x = 1', '  File "/x/site-packages/y/z.py", line 9', '    at f (node_modules/a.js:1:2)', '    at b.js:3', 'ValueError: no'),
    fc.string({ unit: fc.constantFrom(...' "\\/.:,<>()_-aZ09\tFileatin'.split('')), maxLength: 60 }),
    fc.string({ maxLength: 40 }),
  );

  it('never adds text, drops only whole lines of frames, and is idempotent for a path predicate (property)', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.boolean(), (ls, dropAll) => {
        const text = ls.join('\n');
        const drop = (f: Frame): boolean => dropAll || f.path.includes('site-packages') || f.path.includes('node_modules');
        const out = dropFrames(text, drop);
        const outLines = out === '' ? [] : out.split('\n');
        const inLines = text.split('\n');
        expect(outLines.length).toBeLessThanOrEqual(inLines.length);
        // what is left is a subsequence of the input's lines
        let j = 0;
        for (const l of outLines) {
          while (j < inLines.length && inLines[j] !== l) j++;
          expect(j).toBeLessThan(inLines.length);
          j++;
        }
        for (const f of parseFrames(text)) {
          expect(f.lines.length).toBeGreaterThan(0);
          for (const i of f.lines) expect(i).toBeLessThan(inLines.length);
          expect(frameSuffixes(f.path).length).toBeLessThanOrEqual(8);
        }
        if (!dropAll) expect(dropFrames(out, drop)).toBe(out);
      }),
      { numRuns: 1000 },
    );
  });

  it('rewriting paths changes only frame lines, never the line count (property)', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.string({ maxLength: 20 }), (ls, to) => {
        const text = ls.join('\n');
        const frameLines = new Set(parseFrames(text).map((f) => f.lines[0]!));
        const out = applyFrameFates(text, () => ({ path: to })).split('\n');
        const inLines = text.split('\n');
        expect(out.length).toBe(inLines.length);
        inLines.forEach((l, i) => {
          if (!frameLines.has(i)) expect(out[i]).toBe(l);
        });
      }),
      { numRuns: 500 },
    );
  });
});
