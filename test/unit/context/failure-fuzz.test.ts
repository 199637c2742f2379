/**
 * parseFailure reads untrusted terminal output: random text, real logs cut anywhere, and real log
 * lines shuffled together never make it throw, and what it returns is always well-formed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_FAILURE_ITEMS, parseFailure, type FailureItem } from '../../../src/context/failure-log.js';
import { mapFailures } from '../../../src/context/failure-map.js';

const LOGS = join(import.meta.dirname, '../../golden/failures/logs');
const logs = readdirSync(LOGS).filter((f) => f.endsWith('.log')).map((f) => readFileSync(join(LOGS, f), 'utf8'));
const realLines = logs.flatMap((l) => l.split('\n'));

function wellFormed(items: readonly FailureItem[]): void {
  expect(items.length).toBeLessThanOrEqual(MAX_FAILURE_ITEMS);
  for (const it of items) {
    expect(typeof it.file).toBe('string');
    expect(Number.isSafeInteger(it.line) && it.line >= 0).toBe(true);
    if (it.column !== undefined) expect(Number.isSafeInteger(it.column)).toBe(true);
    expect(typeof it.message).toBe('string');
    expect(it.message.length).toBeLessThanOrEqual(300);
    expect(['test', 'frame', 'panic', 'compile', 'type', 'lint']).toContain(it.kind);
  }
}

const noisy = fc.string({ unit: fc.constantFrom(...'aZ_./:()[]\'"<>-=0123456789 \t\n›❯●\\'.split(''), '\x1b[31m', 'File "', ', line ', ' at ', 'Error: ', '---- ', ' stdout ----', '--- FAIL: ', 'panicked at ', 'FAILED ', '.py', '.go', '.rs', '.ts', '.java', '\r\n'), maxLength: 400 });

describe('parseFailure never throws', () => {
  it('on random text made of format fragments', () => {
    fc.assert(
      fc.property(noisy, (log) => {
        const items = parseFailure(log);
        wellFormed(items);
        wellFormed(mapFailures(items, '/r', ['a.py', 'src/a.ts', 'x/y/z.go']).items);
      }),
      { numRuns: 1500 },
    );
  });

  it('on real logs cut at any character', () => {
    fc.assert(
      fc.property(fc.constantFrom(...logs), fc.nat(), fc.nat(), (log, a, b) => {
        const start = a % (log.length + 1);
        const end = start + (b % (log.length - start + 1));
        wellFormed(parseFailure(log.slice(start, end)));
      }),
      { numRuns: 1500 },
    );
  });

  it('on real log lines in random order', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...realLines), { maxLength: 80 }), (lines) => wellFormed(parseFailure(lines.join('\n')))), { numRuns: 800 });
  });

  it('on huge input: a long line and many frames stay bounded', () => {
    const frames = Array.from({ length: 5000 }, (_, i) => `    at f${i} (/p/src/f${i}.js:${i + 1}:1)`).join('\n');
    const items = parseFailure(`Error: boom\n${'x'.repeat(3_000_000)}\n${frames}`);
    wellFormed(items);
    expect(items.length).toBe(MAX_FAILURE_ITEMS);
  });

  it('on non-strings', () => {
    expect(parseFailure(undefined as unknown as string)).toEqual([]);
    expect(parseFailure(42 as unknown as string)).toEqual([]);
  });
});
