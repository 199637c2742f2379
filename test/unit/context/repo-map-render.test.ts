import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { fitMap, MAX_SIGNATURE_CHARS, renderMap, symbolLine, type MapEntry } from '../../../src/context/map-render.js';
import { stemWordsOf } from '../../../src/context/repo-graph.js';
import { loadTokenCounter, type TokenCounter } from '../../../src/context/tokens.js';

const fn = (name: string, signature = `function ${name}(): void`): MapEntry['symbols'][number] => ({ name, kind: 'function', signature });

describe('symbolLine', () => {
  it('keeps a signature that says what it declares, without a trailing brace, semicolon or colon', () => {
    expect(symbolLine(fn('open', 'function open(path: string): Db {'))).toBe('function open(path: string): Db');
    expect(symbolLine({ name: 'Foo', kind: 'class', signature: 'export   class Foo\n  extends Bar' })).toBe('export class Foo extends Bar');
    expect(symbolLine({ name: 'x', kind: 'function', signature: 'def x(a, b):' })).toBe('def x(a, b)');
  });

  it('puts the kind before a signature that does not say it, and the kind and name when there is none', () => {
    expect(symbolLine({ name: 'retry', kind: 'function', signature: 'retry = (fn) =>' })).toBe('function retry = (fn) =>');
    expect(symbolLine({ name: 'LIMIT', kind: 'constant', signature: '' })).toBe('constant LIMIT');
  });

  it('cuts a long line to MAX_SIGNATURE_CHARS with an ellipsis', () => {
    const line = symbolLine(fn('f', `function f(${'a: number, '.repeat(30)})`));
    expect(line.length).toBeLessThanOrEqual(MAX_SIGNATURE_CHARS);
    expect(line.length).toBeGreaterThan(MAX_SIGNATURE_CHARS - 3);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('renderMap', () => {
  it('groups files by directory in path order, marks main and utility files, counts hidden symbols and files', () => {
    const entries: MapEntry[] = [
      { path: 'src/util/log.ts', role: 'utility', symbols: [fn('log')] },
      { path: 'src/app.ts', role: 'main', symbols: [] },
      { path: 'README.ts', role: 'module', symbols: [fn('x')] },
      { path: 'src/util/many.ts', role: 'module', symbols: Array.from({ length: 12 }, (_, i) => fn(`f${i}`)) },
      { path: 'src/a.ts', role: 'test', symbols: [] },
    ];
    expect(renderMap(entries, 3)).toBe(
      [
        './',
        '  README.ts',
        '    function x(): void',
        'src/',
        '  a.ts',
        '  app.ts [main]',
        'src/util/',
        '  log.ts [util]',
        '    function log(): void',
        '  many.ts',
        ...Array.from({ length: 10 }, (_, i) => `    function f${i}(): void`),
        '    … 2 more',
        '… 3 more files',
        '',
      ].join('\n'),
    );
  });

  it('is empty for no files, and says "1 more file" in the singular', () => {
    expect(renderMap([], 0)).toBe('');
    expect(renderMap([], 1)).toBe('… 1 more file\n');
  });
});

describe('fitMap', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await loadTokenCounter();
  });

  const entries = (n: number): MapEntry[] =>
    Array.from({ length: n }, (_, i) => ({ path: `src/d${i % 7}/file${i}.ts`, role: 'module', symbols: [fn(`exported${i}`, `function exported${i}(input: string, options: Options${i}): Result<${i}>`)] }));

  it('includes the largest number of top-ranked files that fits, and says how many are left', () => {
    const ranked = entries(200);
    const fitted = fitMap(ranked, 300, counter);
    expect(fitted.included).toBeGreaterThan(0);
    expect(fitted.included).toBeLessThan(200);
    expect(fitted.tokens).toBe(counter.count(fitted.text));
    expect(fitted.tokens).toBeLessThanOrEqual(300);
    expect(fitted.text).toContain(`… ${200 - fitted.included} more files`);
    // one more file would not fit
    expect(counter.count(renderMap(ranked.slice(0, fitted.included + 1), 200 - fitted.included - 1))).toBeGreaterThan(300);
    // the first-ranked files are the ones shown
    expect(fitted.text).toContain('file0.ts');
  });

  it('shows everything when the budget allows', () => {
    const fitted = fitMap(entries(5), 4000, counter);
    expect(fitted.included).toBe(5);
    expect(fitted.text).not.toContain('more file');
  });

  it('never exceeds any budget from 64 to 4000 tokens (property)', () => {
    const symbol = fc.record({
      name: fc.string({ minLength: 1, maxLength: 20 }),
      kind: fc.constantFrom('function' as const, 'class' as const, 'constant' as const),
      signature: fc.string({ maxLength: 160 }),
    });
    const entry = fc.record({
      path: fc.array(fc.stringMatching(/^[a-zA-Z0-9_.-]{1,12}$/), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
      role: fc.constantFrom('main' as const, 'module' as const, 'utility' as const, 'test' as const),
      symbols: fc.array(symbol, { maxLength: 14 }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 120 }), fc.integer({ min: 64, max: 4000 }), (ranked, budget) => {
        const fitted = fitMap(ranked, budget, counter);
        expect(counter.count(fitted.text)).toBeLessThanOrEqual(budget);
        expect(fitted.tokens).toBe(counter.count(fitted.text));
      }),
      { numRuns: 60 },
    );
  });
});

describe('stemWordsOf', () => {
  it('splits a file name up to its first dot at dashes, underscores and camelCase humps', () => {
    expect(stemWordsOf('src/context/repo-map.ts')).toEqual(['repo', 'map']);
    expect(stemWordsOf('src/repoMap.test.ts')).toEqual(['repo', 'map']);
    expect(stemWordsOf('pkg/retry_policy.py')).toEqual(['retry', 'policy']);
    expect(stemWordsOf('.eslintrc.cjs')).toEqual(['.eslintrc.cjs']); // a dotfile keeps its name
  });
});
