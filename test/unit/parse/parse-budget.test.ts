/**
 * The deterministic parse budget (src/parse/parse-budget.ts): whether a file gets syntax chunks
 * or line windows depends on tree-sitter's count of progress reports for that file, never on
 * how long it took; the wall-clock guard only stops a hang, and is tested with fake clocks.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChunkInput } from '../../../src/core/chunk.js';
import type { Clock } from '../../../src/core/logger.js';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { createFileParser } from '../../../src/parse/chunker.js';
import { parseCode, type CodeParse } from '../../../src/parse/code-parser.js';
import { loadGrammars, type LoadedGrammar } from '../../../src/parse/grammars.js';
import { monotonicClock, PARSE_LIMITS, workMeter, type ParseLimits } from '../../../src/parse/parse-budget.js';

const CONFIG: ChunkConfig = { windowLines: 60, overlapLines: 8, maxBytes: 4096 };
const UNLIMITED: ParseLimits = { parseWork: 1e9, queryWork: 1e9, queryMatches: 1e9 };

/** About 40 KB of TypeScript: classes, functions, imports. */
const SOURCE = [
  "import { join } from 'node:path';",
  ...Array.from({ length: 120 }, (_, i) =>
    i % 3 === 0
      ? `export class Box${i} {\n  constructor(private readonly v: number) {}\n  get(): number { return this.v * ${i}; }\n}`
      : `export function step${i}(a: number, b: string): string {\n  const t = join(b, String(a + ${i}));\n  return t.length > ${i} ? t : b;\n}`,
  ),
].join('\n\n');

const input = (text: string, path = 'src/steps.ts'): ChunkInput => ({ path, language: 'typescript', contentType: 'code', text });

let ts: LoadedGrammar;
beforeAll(async () => {
  ts = (await loadGrammars(['typescript'])).get('typescript')!;
  expect(ts).toBeDefined();
});

/** Progress reports tree-sitter makes parsing `text`, and running the query on its tree. */
function workOf(text: string): { parse: number; query: number; matches: number } {
  let parse = 0;
  let query = 0;
  const tree = ts.parser.parse(text, null, { progressCallback: () => void parse++ })!;
  try {
    const matches = ts.query.matches(tree.rootNode, { progressCallback: () => void query++ });
    return { parse, query, matches: matches.length };
  } finally {
    tree.delete();
  }
}

/** Clocks that must not change a decision: frozen, the real one, and one racing ahead (but never past a 1e12 ms guard). */
const clocks = (): Record<string, Clock> => {
  let t = 0;
  return { frozen: { now: () => 42 }, monotonic: monotonicClock, racing: { now: () => (t += 1000) } };
};

describe('workMeter', () => {
  it('cancels on the report after the budget, whatever the clock says', () => {
    for (const clock of Object.values(clocks())) {
      const meter = workMeter(5, clock, clock.now() + 1e12);
      const answers = Array.from({ length: 8 }, () => meter.tick());
      expect(answers).toEqual([false, false, false, false, false, true, true, true]);
      expect(meter.stopped()).toBe('budget');
      expect(meter.used()).toBe(6);
    }
  });

  it('cancels once the clock passes the guard, and says so', () => {
    let t = 0;
    const clock = { now: () => (t += 10) };
    const meter = workMeter(1000, clock, 35);
    expect([meter.tick(), meter.tick(), meter.tick(), meter.tick()]).toEqual([false, false, false, true]);
    expect(meter.stopped()).toBe('timeout');
  });
});

describe('parseCode budget', () => {
  it('the work of one file is the same count on every run, whatever was parsed before', () => {
    const first = workOf(SOURCE);
    workOf('export const other = [1, 2, 3];\n'.repeat(500));
    expect(workOf(SOURCE)).toEqual(first);
    expect(first.parse).toBeGreaterThan(50);
    expect(first.query).toBeGreaterThan(5);
  });

  it('the decision flips exactly at the counted work, identical across runs and clocks', () => {
    const work = workOf(SOURCE);
    const at = (limits: ParseLimits, clock: Clock): CodeParse => parseCode(ts, input(SOURCE), CONFIG, { limits, clock, timeoutMs: 1e12 });
    const cases: Array<[ParseLimits, 'ok' | 'parse_budget']> = [
      [{ ...UNLIMITED, parseWork: work.parse }, 'ok'],
      [{ ...UNLIMITED, parseWork: work.parse - 1 }, 'parse_budget'],
      [{ ...UNLIMITED, queryWork: work.query }, 'ok'],
      [{ ...UNLIMITED, queryWork: work.query - 1 }, 'parse_budget'],
      [{ ...UNLIMITED, queryMatches: work.matches }, 'ok'],
      [{ ...UNLIMITED, queryMatches: work.matches - 1 }, 'parse_budget'],
    ];
    const reference = at(UNLIMITED, monotonicClock);
    expect(reference.ok).toBe(true);
    for (let run = 0; run < 3; run++) {
      for (const [name, clock] of Object.entries(clocks())) {
        for (const [limits, expected] of cases) {
          const result = at(limits, clock);
          const label = `${name} ${JSON.stringify(limits)}`;
          if (expected === 'ok') expect(result, label).toEqual(reference);
          else expect(result, label).toMatchObject({ ok: false, reason: 'parse_budget' });
        }
      }
    }
  });

  it('any text (fuzzed, often broken code): the decision is its counted work against the budget, under any clock', () => {
    const pieces = ['function f(a) {', '}', 'class C {', '<T>(x: T) =>', '[', ']', '(', ')', '"str', "'", '`${', 'if (a < b > c)', ';', '\n', 'import { x } from "y";', 'export const k = 1;', '/*', '*/', '//', ' '];
    const textArb = fc.array(fc.constantFrom(...pieces), { maxLength: 300 }).map((p) => p.join(''));
    fc.assert(
      fc.property(textArb, fc.integer({ min: 1, max: 40 }), (text, parseWork) => {
        const limits = { ...UNLIMITED, parseWork };
        const { parse } = workOf(text);
        const results = Object.values(clocks()).map((clock) => parseCode(ts, input(text), CONFIG, { limits, clock, timeoutMs: 1e12 }));
        for (const r of results) expect(r).toEqual(results[0]);
        const overBudget = !results[0]!.ok && results[0]!.reason === 'parse_budget';
        expect(overBudget).toBe(parse > parseWork);
        expect(results[0]!.ok || results[0]!.reason !== 'parse_timeout').toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it('the production budget parses ordinary code with room to spare', () => {
    const work = workOf(SOURCE);
    // 40 KB here; the budget is meant for ordinary files up to the 1 MB maxFileBytes
    expect(work.parse * 25).toBeLessThan(PARSE_LIMITS.parseWork);
    expect(work.query * 25).toBeLessThan(PARSE_LIMITS.queryWork);
    expect(parseCode(ts, input(SOURCE), CONFIG).ok).toBe(true);
  });
});

describe('wall-clock guard', () => {
  it('a clock past the guard during the parse gives parse_timeout, and the parser still works afterwards', () => {
    let t = 0;
    const clock = { now: () => (t += 1000) };
    const result = parseCode(ts, input(SOURCE), CONFIG, { clock, timeoutMs: 30_000 });
    expect(result).toMatchObject({ ok: false, reason: 'parse_timeout' });
    expect(!result.ok && result.detail).toMatch(/^parse stopped by the wall-clock guard/);
    expect(parseCode(ts, input(SOURCE), CONFIG)).toEqual(parseCode(ts, input(SOURCE), CONFIG, { clock: { now: () => 0 } }));
  });

  it('a clock that passes the guard during the query gives parse_timeout too', () => {
    const { parse } = workOf(SOURCE);
    let calls = 0;
    // one call sets the deadline, one per parse report: the query's first report finds time up
    const clock = { now: () => (++calls > parse + 1 ? 1e9 : 0) };
    const result = parseCode(ts, input(SOURCE), CONFIG, { clock, timeoutMs: 30_000 });
    expect(result).toMatchObject({ ok: false, reason: 'parse_timeout' });
    expect(!result.ok && result.detail).toMatch(/^query stopped by the wall-clock guard/);
  });

  it('createFileParser passes the guard on: line windows and a parse_timeout fallback', () => {
    let t = 0;
    const calls: unknown[][] = [];
    const parser = createFileParser(CONFIG, new Map([['typescript', ts]]), (...args) => calls.push(args.slice(0, 3)), { clock: { now: () => (t += 1000) }, timeoutMs: 30_000 });
    const parsed = parser.parse(input(SOURCE));
    expect(parsed).toMatchObject({ parser: 'window', fallback: 'parse_timeout', symbols: [] });
    expect(calls).toEqual([['typescript', 'parse_timeout', 'src/steps.ts']]);
  });
});
