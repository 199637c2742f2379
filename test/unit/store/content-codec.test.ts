/**
 * Stored text, compressed or not (schema 12): every read of ContentRepo must give what the raw
 * UTF-8 bytes give, for bodies written compressed by putBytes and for bodies an older schema
 * wrote as they are (codec 0), side by side in one database.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../../../src/store/driver.js';
import { holdsBytes, MAX_PACK_BYTES, packBody, unpackBody } from '../../../src/store/content-codec.js';
import { gramFilter, mayHold } from '../../../src/store/content-grams.js';
import { IndexStore } from '../../../src/store/index-store.js';
import { tempDir } from '../../helpers/temp.js';

const word = fc.stringMatching(/^[A-Za-z_]{1,6}$/);
// source-like text: words, punctuation, newlines and some non-ASCII, long enough to compress
const body = fc
  .array(fc.oneof(word, fc.constantFrom(' ', '\n', '(', ')', '.', 'é', 'ß', '日本', '{', '}', '😀')), { minLength: 0, maxLength: 400 })
  .map((parts) => parts.join(''));

function asciiLowerIncludes(text: string, needle: string): boolean {
  const low = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return low(text).includes(low(needle));
}

describe('content codec', () => {
  let t: ReturnType<typeof tempDir>;
  let store: IndexStore;
  beforeAll(() => {
    t = tempDir();
    store = IndexStore.open(join(t.dir, 'c.db'), { create: true });
  });
  afterAll(() => {
    store.close();
    t.cleanup();
  });

  it('packs a long repetitive text, keeps a short one as is, and unpacks to the same bytes', () => {
    const long = Buffer.from('export function widget(a, b) { return a + b; }\n'.repeat(40));
    const packed = packBody(long);
    expect(packed.codec).toBe(1);
    expect(packed.body.byteLength).toBeLessThan(long.byteLength / 4);
    expect(unpackBody(packed.body, packed.codec).equals(long)).toBe(true);
    expect(packBody(Buffer.from('short'))).toEqual({ body: Buffer.from('short'), codec: 0 });
    // a large file stays as is: a search slicing one chunk of it must not inflate it whole
    const bundle = Buffer.from('export function widget(a, b) { return a + b; }\n'.repeat(Math.ceil((MAX_PACK_BYTES + 1) / 40)));
    expect(bundle.byteLength).toBeGreaterThan(MAX_PACK_BYTES);
    expect(packBody(bundle)).toEqual({ body: bundle, codec: 0 });
    expect(packBody(bundle.subarray(0, MAX_PACK_BYTES)).codec).toBe(1);
    expect(holdsBytes(Buffer.from('Hello World'), Buffer.from('o wOR'), true)).toBe(true);
    expect(holdsBytes(Buffer.from('Hello World'), Buffer.from('o wOR'), false)).toBe(false);
  });

  it('a trigram filter never rules out a text holding the needle (in any ASCII case), and rules out a foreign word', () => {
    fc.assert(
      fc.property(body, fc.nat(), fc.integer({ min: 1, max: 12 }), fc.boolean(), (text, at, length, flip) => {
        const bytes = Buffer.from(text);
        const start = bytes.length === 0 ? 0 : at % bytes.length;
        const needle = Buffer.from(bytes.subarray(start, start + length));
        if (flip) for (let i = 0; i < needle.length; i++) if (/[a-zA-Z]/.test(String.fromCharCode(needle[i]!))) needle[i] = needle[i]! ^ 32;
        expect(mayHold(gramFilter(bytes), needle)).toBe(true);
      }),
      { numRuns: 500 },
    );
    const source = Buffer.from('export function widget(a, b) {\n  // TODO: check the bounds\n  return a + b;\n}\n'.repeat(60));
    expect(mayHold(gramFilter(source), Buffer.from('todo: CHECK'))).toBe(true);
    expect(mayHold(gramFilter(source), Buffer.from('zqxjvwk_nomatch'))).toBe(false);
    expect(mayHold(gramFilter(source), Buffer.from('widget(b'))).toBe(false);
  });

  it('text, slice, bodies and the containing-searches agree with the raw bytes, packed or not', () => {
    let n = 0;
    fc.assert(
      fc.property(fc.array(body, { minLength: 1, maxLength: 6 }), word, fc.boolean(), (texts, needle, viaOldSchema) => {
        const hashes = texts.map(() => `h${n++}`);
        const raw = openConnection(join(t.dir, 'c.db'));
        try {
          texts.forEach((text, i) => {
            const bytes = Buffer.from(text.repeat(text.length < 100 ? 8 : 1));
            // half the bodies as schema 11 wrote them (as is), the others through putBytes
            if (viaOldSchema && i % 2 === 0) raw.prepare('INSERT INTO content(hash, body) VALUES (?, ?)').run(hashes[i]!, bytes);
            else store.content.putBytes(hashes[i]!, bytes);
          });
        } finally {
          raw.close();
        }
        const want = texts.map((text) => text.repeat(text.length < 100 ? 8 : 1));
        const wantBytes = want.map((w) => Buffer.from(w));
        hashes.forEach((h, i) => {
          expect(store.content.text(h)).toBe(want[i]);
          const bytes = wantBytes[i]!;
          const start = Math.floor(bytes.length / 3);
          const end = Math.max(start, bytes.length - 1);
          expect(store.content.slice(h, start, end)).toBe(bytes.subarray(start, end).toString('utf8'));
        });
        const all = store.content.bodies(hashes);
        expect(hashes.map((h) => all.get(h)?.toString('utf8'))).toEqual(want);
        const holding = hashes.filter((_, i) => want[i]!.includes(needle));
        expect([...store.content.bodiesContaining(hashes, needle, false).keys()].sort()).toEqual(holding.sort());
        const folded = hashes.filter((_, i) => asciiLowerIncludes(want[i]!, needle));
        expect([...store.content.bodiesContaining(hashes, needle, true).keys()].sort()).toEqual(folded.sort());
      }),
      { numRuns: 60 },
    );
  });

  it('slices many times over more bodies than it keeps inflated, in any order, give the raw bytes; a body replaced under its hash is read anew', () => {
    const texts = Array.from({ length: 12 }, (_, i) => `export const value${i} = compute(${i}, 'é');\n`.repeat(30 + i));
    texts.forEach((text, i) => store.content.putBytes(`k${i}`, Buffer.from(text)));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 400 })), { minLength: 1, maxLength: 40 }), (reads) => {
        for (const [i, from, len] of reads) {
          const bytes = Buffer.from(texts[i]!);
          const start = Math.min(from, bytes.length);
          const end = Math.min(bytes.length, start + len);
          expect(store.content.slice(`k${i}`, start, end)).toBe(bytes.subarray(start, end).toString('utf8'));
        }
      }),
      { numRuns: 40 },
    );
    // an index pass of another feature version replaces a body under the same hash
    const before = store.content.slice('k0', 0, 20);
    store.content.putBytes('k0', Buffer.from('export const other = replaced(0);\n'.repeat(40)));
    expect(before).toBe(texts[0]!.slice(0, 20));
    expect(store.content.slice('k0', 0, 20)).toBe('export const other =');
  });
});
