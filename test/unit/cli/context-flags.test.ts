/**
 * The structured flags of `scry context` and the arguments of retrieve_context: whatever is typed
 * or sent, the parser returns a value or throws INVALID_ARGUMENT naming the input, never anything
 * else; valid values round-trip.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/core/errors.js';
import { parseCurrent, parseSelection, parseTask, stdinInput } from '../../../src/cli/context-flags.js';
import { contextRequest } from '../../../src/tools/context-args.js';
import { checkContextRequest } from '../../../src/engine/task-request.js';
import { CONTEXT_TASKS } from '../../../src/context/task-strategy.js';

/** Calls fn; a throw must be INVALID_ARGUMENT, with the input named in data.name. */
function invalidOrValue<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    expect(isEngineError(err) && err.code === 'INVALID_ARGUMENT').toBe(true);
    expect(typeof (err as { data: { name: unknown } }).data.name).toBe('string');
    return undefined;
  }
}

describe('scry context flags', () => {
  it('--current path[:line] round-trips, and a bad line is INVALID_ARGUMENT', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\w./-]{1,30}$/), fc.integer({ min: 1, max: 1e9 }), (path, line) => {
        expect(parseCurrent(`${path}:${line}`)).toEqual({ path, line });
        expect(parseCurrent(path)).toEqual({ path });
      }),
    );
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (raw) => void invalidOrValue(() => parseCurrent(raw))));
    expect(() => parseCurrent('a.ts:0')).toThrow(/line/);
  });

  it('--selection START-END round-trips; anything else is INVALID_ARGUMENT', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.nat({ max: 1e6 }), (a, d) => {
        expect(parseSelection(`${a}-${a + d}`)).toEqual({ startLine: a, endLine: a + d });
        expect(parseSelection(String(a))).toEqual({ startLine: a, endLine: a });
      }),
    );
    fc.assert(fc.property(fc.string({ maxLength: 20 }), (raw) => void invalidOrValue(() => parseSelection(raw))));
    expect(() => parseSelection('9-3')).toThrow(/START-END/);
  });

  it('--task takes exactly the tasks', () => {
    for (const t of CONTEXT_TASKS) expect(parseTask(t)).toBe(t);
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (raw) => {
        const task = invalidOrValue(() => parseTask(raw));
        expect(task === undefined || (CONTEXT_TASKS as readonly string[]).includes(raw)).toBe(true);
      }),
    );
  });

  it('only one input reads stdin', () => {
    expect(stdinInput({ query: '-', '--log': undefined })).toBe('query');
    expect(() => stdinInput({ query: 'q', '--log': '-', '--diff': '-' })).toThrow(/--log and --diff/);
  });
});

const anyValue = fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -3, max: 50 }), fc.constant(undefined), fc.constant(null), fc.boolean(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }));

describe('context request arguments', () => {
  it('random requests are accepted or INVALID_ARGUMENT, never another error', () => {
    const request = fc.record(
      {
        query: fc.oneof(fc.constant(''), fc.string({ maxLength: 20 })),
        task: fc.oneof(fc.constantFrom(...CONTEXT_TASKS), anyValue),
        current: fc.oneof(fc.record({ path: anyValue, line: anyValue }), anyValue),
        selection: fc.oneof(fc.record({ startLine: anyValue, endLine: anyValue }), anyValue),
        log: anyValue,
        diff: anyValue,
        draft: anyValue,
        openFiles: anyValue,
        diagnostics: fc.oneof(fc.array(fc.record({ path: anyValue, line: anyValue, message: anyValue }), { maxLength: 2 }), anyValue),
        tokens: anyValue,
      },
      { requiredKeys: ['query'] },
    );
    fc.assert(fc.property(request, ({ query, ...options }) => void invalidOrValue(() => checkContextRequest(query, options as never))), { numRuns: 2000 });
  });

  it('retrieve_context arguments map onto engine options, a selection defaulting its other end', () => {
    const opts = contextRequest({ query: '', task: 'explain', current_path: 'src/a.ts', current_line: 4, selection_start: 3 }, { tokens: 1000 });
    expect(opts).toMatchObject({ task: 'explain', current: { path: 'src/a.ts', line: 4 }, selection: { startLine: 3, endLine: 3 }, tokens: 1000 });
    expect(() => contextRequest({ query: '', task: 'fix' }, {})).toThrow(/query/);
    expect(() => contextRequest({ query: 'q', selection_end: 5 }, {})).toThrow(/selection/);
  });
});
