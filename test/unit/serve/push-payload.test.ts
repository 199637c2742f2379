/**
 * The push wire format (issue 23): every body is parsed whole before the store sees it. Property
 * tests: arbitrary JSON never gets past the parser as anything but a typed body or PUSH_INVALID
 * (no other exception type escapes), well-formed bodies parse to themselves, and any one damage to
 * a well-formed body (a field dropped, an unknown field added, a value of the wrong type) is
 * refused whole.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/core/errors.js';
import { batches, manifestHashes } from '../../../src/serve/push-client.js';
import { parsePushBody, PUSH_STEPS, type PushStep } from '../../../src/serve/push-payload.js';

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const repo = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}(\/[a-z0-9-]{1,10})?$/);
const nat = fc.nat({ max: 100_000 });
const text = fc.option(fc.string({ maxLength: 40 }), { nil: null });

const chunk = fc.record({
  ordinal: nat,
  kind: fc.constantFrom('function', 'class', 'section', 'window'),
  startLine: fc.nat({ max: 50 }),
  endLine: fc.integer({ min: 50, max: 100 }),
  startByte: fc.nat({ max: 50 }),
  endByte: fc.integer({ min: 50, max: 100 }),
  hash: hex64,
  postings: hex64,
  symbol: text,
  container: text,
  signature: text,
  tsMs: fc.option(fc.nat(), { nil: null }),
});
const file = fc.record({
  path: fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,3}\.[a-z]{1,3}$/),
  language: fc.constantFrom('typescript', 'markdown', 'json'),
  contentType: fc.constantFrom('code', 'docs', 'config', 'text'),
  content: hex64,
  size: nat,
  lineCount: nat,
  chunks: fc.array(chunk, { maxLength: 3 }),
});
const rev = { repo, revision: fc.integer({ min: 1, max: 1e9 }), base: fc.option(fc.integer({ min: 1, max: 1e9 }), { nil: null }) };

/** A well-formed body of each step. */
const bodies: Record<PushStep, fc.Arbitrary<Record<string, unknown>>> = {
  begin: fc.record({ repo }),
  missing: fc.record({ repo, chunks: fc.array(hex64, { maxLength: 4 }), contents: fc.array(hex64, { maxLength: 4 }) }),
  chunks: fc.record({ ...rev, chunks: fc.array(fc.record({ hash: hex64, length: nat, postings: fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.nat({ max: 5 }), fc.array(nat, { minLength: 1, maxLength: 4 })), { maxLength: 4 }) }), { maxLength: 3 }) }),
  contents: fc.record({ ...rev, contents: fc.array(fc.record({ hash: hex64, body: fc.string({ maxLength: 200 }) }), { maxLength: 3 }) }),
  vectors: fc.record({ ...rev, model: fc.constant('builtin@256@1'), vectors: fc.array(fc.tuple(hex64, fc.base64String({ maxLength: 40 })), { maxLength: 3 }) }),
  files: fc.record({ ...rev, files: fc.uniqueArray(file, { selector: (f) => f.path, maxLength: 4 }) }),
  commit: fc.record({ ...rev, manifest: fc.uniqueArray(file, { selector: (f) => f.path, maxLength: 4 }).map((files) => ({ files })) }),
  abort: fc.record(rev),
};

function refusedWhole(step: PushStep, body: unknown): boolean {
  try {
    parsePushBody(step, body);
    return false;
  } catch (err) {
    if (!isEngineError(err, 'PUSH_INVALID')) throw err; // any other exception is a parser bug
    expect(err.message).toMatch(new RegExp(`^the push was refused: ${step}: `));
    return true;
  }
}

describe('push payload parser', () => {
  it('arbitrary JSON is a typed body or PUSH_INVALID, never another exception', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PUSH_STEPS), fc.jsonValue(), (step, body) => {
        try {
          parsePushBody(step, body);
        } catch (err) {
          expect(isEngineError(err, 'PUSH_INVALID')).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it.each(PUSH_STEPS.map((s) => [s]))('well-formed %s bodies parse to themselves', (step) => {
    fc.assert(
      fc.property(bodies[step], (body) => {
        expect(parsePushBody(step, JSON.parse(JSON.stringify(body)))).toEqual(body);
      }),
      { numRuns: 200 },
    );
  });

  it.each(PUSH_STEPS.map((s) => [s]))('a damaged %s body is refused whole', (step) => {
    const damage = fc.constantFrom('drop', 'extra', 'retype');
    fc.assert(
      fc.property(bodies[step], damage, fc.nat(), (body, how, pick) => {
        const keys = Object.keys(body);
        const key = keys[pick % keys.length]!;
        const broken: Record<string, unknown> = { ...body };
        if (how === 'drop') delete broken[key];
        else if (how === 'extra') broken.unexpected = 1;
        else broken[key] = typeof body[key] === 'string' ? 42 : 'not-this-type';
        expect(refusedWhole(step, broken)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses paths outside the repository, duplicate paths and inverted chunks', () => {
    const f = { path: 'a.ts', language: 'typescript', contentType: 'code', content: 'a'.repeat(64), size: 1, lineCount: 1, chunks: [] };
    const commit = (files: unknown[]) => ({ repo: 'r', revision: 1, base: null, manifest: { files } });
    expect(refusedWhole('commit', commit([{ ...f, path: '../etc/passwd' }]))).toBe(true);
    expect(refusedWhole('commit', commit([{ ...f, path: '/abs.ts' }]))).toBe(true);
    expect(refusedWhole('commit', commit([f, f]))).toBe(true);
    const c = { ordinal: 0, kind: 'function', startLine: 5, endLine: 2, startByte: 0, endByte: 1, hash: 'b'.repeat(64), postings: 'c'.repeat(64), symbol: null, container: null, signature: null, tsMs: null };
    expect(refusedWhole('commit', commit([{ ...f, chunks: [c] }]))).toBe(true);
    expect(refusedWhole('begin', { repo: '../x' })).toBe(true);
    expect(refusedWhole('begin', { repo: '.hidden' })).toBe(true);
  });
});

describe('push batches', () => {
  it('keep every item in order, each batch under the limit unless one item alone is larger', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 60 }), fc.integer({ min: 10, max: 2000 }), (items, limit) => {
        const out = [...batches(items, limit)];
        expect(out.flat()).toEqual(items);
        for (const b of out) {
          expect(b.length).toBeGreaterThan(0);
          const size = b.reduce((n, s) => n + Buffer.byteLength(JSON.stringify(s)) + 1, 0);
          if (b.length > 1) expect(size).toBeLessThanOrEqual(limit);
        }
      }),
    );
  });

  it('a manifest references each postings and body hash once', () => {
    const c = (postings: string) => ({ ordinal: 0, kind: 'function' as const, startLine: 1, endLine: 1, startByte: 0, endByte: 1, hash: postings, postings, symbol: null, container: null, signature: null, tsMs: null });
    const files = [
      { path: 'a', language: 'x', contentType: 'code' as const, content: 'h1', size: 1, lineCount: 1, chunks: [c('p1'), c('p2')] },
      { path: 'b', language: 'x', contentType: 'code' as const, content: 'h1', size: 1, lineCount: 1, chunks: [c('p2')] },
    ];
    expect(manifestHashes({ files })).toEqual({ chunks: ['p1', 'p2'], contents: ['h1'] });
  });
});
