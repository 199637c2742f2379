/**
 * The push payload checks (src/team/payload.ts) on untrusted input: a well-formed payload passes,
 * any change to it that its hash does not cover is refused with PUSH_INVALID; bodies with NULs
 * survive PostgreSQL's text type.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { bodyHash, checkChunkPayload, checkContentPayload, checkManifest, checkRepoName, postingsHash } from '../../../src/team/payload.js';
import { restoredBody, storedBody } from '../../../src/team/pg-push.js';
import type { ChunkPayload } from '../../../src/team/team-store.js';

const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'none';
  } catch (err) {
    return err instanceof EngineError ? err.code : String(err);
  }
};

/** Postings as the client builds them: sorted by term then column, positions ascending and distinct. */
const chunkArb = fc
  .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z0-9_]{1,6}$/), fc.integer({ min: 0, max: 5 }), fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 5 })), {
    selector: (p) => `${p[0]}\0${p[1]}`,
    maxLength: 12,
  })
  .map((ps): ChunkPayload => {
    const postings = ps.map(([t, c, pos]) => [t, c, [...pos].sort((a, b) => a - b)] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    const length = postings.reduce((n, p) => n + p[2].length, 0);
    return { hash: postingsHash(length, postings), length, postings };
  });

describe('push payload checks', () => {
  it('accepts what the client builds and refuses any tampering', () => {
    fc.assert(
      fc.property(chunkArb, fc.nat(), (chunk, pick) => {
        expect(code(() => checkChunkPayload(chunk))).toBe('none');
        if (chunk.postings.length === 0) return;
        const i = pick % chunk.postings.length;
        const p = chunk.postings[i]!;
        const mutations: ChunkPayload[] = [
          { ...chunk, length: chunk.length + 1 },
          { ...chunk, postings: chunk.postings.map((q, j) => (j === i ? ([q[0], q[1], q[2].map((x) => x + 1)] as const) : q)) },
          { ...chunk, postings: chunk.postings.map((q, j) => (j === i ? ([`${q[0]}~`, q[1], q[2]] as const) : q)) },
          { ...chunk, postings: [...chunk.postings, p] },
          { ...chunk, hash: '0'.repeat(64) },
        ];
        for (const m of mutations) expect(code(() => checkChunkPayload(m))).toBe('PUSH_INVALID');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses malformed postings, bodies, manifests and repository names', () => {
    const bad: unknown[] = [null, { hash: 'x', length: 0, postings: [] }, { hash: postingsHash(0, []), length: 0, postings: [['a', 9, [0]]] }];
    for (const b of bad) expect(code(() => checkChunkPayload(b as ChunkPayload))).toBe('PUSH_INVALID');
    expect(code(() => checkContentPayload({ hash: bodyHash('a'), body: 'a' }))).toBe('none');
    expect(code(() => checkContentPayload({ hash: bodyHash('a'), body: 'b' }))).toBe('PUSH_INVALID');
    const file = { path: 'a.ts', language: 'typescript', contentType: 'code' as const, content: bodyHash('x'), size: 1, lineCount: 1, chunks: [] };
    expect(code(() => checkManifest({ files: [file] }))).toBe('none');
    for (const path of ['', '/etc/passwd', 'a/../b', 'a//b', 'a/']) expect(code(() => checkManifest({ files: [{ ...file, path }] })), path).toBe('PUSH_INVALID');
    expect(code(() => checkManifest({ files: [file, file] }))).toBe('PUSH_INVALID');
    expect(code(() => checkManifest({ files: [{ ...file, contentType: 'binary' as 'code' }] }))).toBe('PUSH_INVALID');
    expect(code(() => checkManifest(null as unknown as { files: [] }))).toBe('PUSH_INVALID');
    for (const name of ['acme/api', 'zod@4', 'a.b-c_d']) expect(checkRepoName(name)).toBe(name);
    for (const name of ['', '.hidden', '/abs', 'a/../b', 'a b', 'x'.repeat(201)]) expect(code(() => checkRepoName(name)), name).toBe('INVALID_ARGUMENT');
  });

  it('a body with NUL characters is stored without them and restored exactly', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\0', '\u0001', 'é', '\n') }), (body) => {
        const s = storedBody(body);
        expect(s.text.includes('\0')).toBe(false);
        expect(Buffer.byteLength(s.text)).toBe(Buffer.byteLength(body));
        expect(restoredBody(s.text, s.nuls)).toBe(body);
      }),
    );
  });
});
