import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundEnvelope, MAX_ENVELOPE_BYTES } from '../../../src/tools/bound.js';
import type { TokenCounter } from '../../../src/index.js';

/** A deterministic stand-in tokenizer: one token per 4 characters (the real one is tested in integration). */
const counter: TokenCounter = { name: 'quarter', count: (s) => Math.ceil(s.length / 4) };

const item = fc.record({ path: fc.string({ minLength: 1, maxLength: 30 }), start_line: fc.nat(10_000), text: fc.string({ maxLength: 400 }) });
const label = (x: unknown): string => `${(x as { path: string }).path}:${(x as { start_line: number }).start_line}`;

describe('boundEnvelope', () => {
  it('leaves a result that fits untouched', () => {
    const env = boundEnvelope({ ok: true, data: { results: [{ a: 1 }] }, error: null, warnings: ['w'] }, { list: 'results' });
    expect(env).toEqual({ ok: true, data: { results: [{ a: 1 }] }, error: null, meta: { truncated: false, bytes: env.meta.bytes, warnings: ['w'] } });
    expect(env.meta.bytes).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(env)));
  });

  it("carries the handler's source into meta, also when the result is cut", () => {
    const env = boundEnvelope({ ok: true, data: { results: ['x'.repeat(400), 'y'.repeat(400)] }, error: null, warnings: [], source: 'lsp:python' }, { list: 'results', label: String }, { maxTokens: 200, counter });
    expect(env.meta).toMatchObject({ source: 'lsp:python', truncated: true });
    expect(boundEnvelope({ ok: true, data: {}, error: null, warnings: [] }, undefined).meta).not.toHaveProperty('source');
  });

  it('property: never over budget; kept items are a prefix; kept + omitted = all; or too_large', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 60 }), fc.integer({ min: 64, max: 3000 }), (items, maxTokens) => {
        const env = boundEnvelope({ ok: true, data: { results: items, mode: 'lexical' }, error: null, warnings: [] }, { list: 'results', label }, { maxTokens, counter });
        const json = JSON.stringify(env);
        expect(Buffer.byteLength(json)).toBeLessThanOrEqual(env.meta.bytes);
        expect(env.meta.bytes).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
        // meta.bytes is measured with its widest value in place, so the counted text is never shorter
        expect(counter.count(json)).toBeLessThanOrEqual(maxTokens);
        if (!env.ok) {
          expect(env.error).toBe('too_large');
          return;
        }
        const kept = (env.data as { results: unknown[] }).results;
        expect(kept).toEqual(items.slice(0, kept.length));
        const omitted = env.meta.omitted?.[0]?.count ?? 0;
        expect(kept.length + omitted).toBe(items.length);
        expect(env.meta.truncated).toBe(omitted > 0);
        if (omitted > 0) expect(kept.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('property: a text is cut at whole lines only', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 80 }).map((s) => s.replace(/\n/g, ' ')), { minLength: 1, maxLength: 200 }), fc.integer({ min: 64, max: 2000 }), (lines, maxTokens) => {
        const text = lines.join('\n');
        const keep = (d: unknown, n: number): unknown => ({ ...(d as object), text: text.split('\n').slice(0, n).join('\n') });
        const env = boundEnvelope({ ok: true, data: { text }, error: null, warnings: [] }, { lines: { field: 'text', keep } }, { maxTokens, counter });
        expect(counter.count(JSON.stringify(env))).toBeLessThanOrEqual(maxTokens);
        if (!env.ok) return;
        const got = (env.data as { text: string }).text.split('\n');
        expect(got).toEqual(lines.slice(0, got.length));
        if (got.length < lines.length) expect(env.meta.omitted).toEqual([{ field: 'text', count: lines.length - got.length }]);
      }),
      { numRuns: 200 },
    );
  });

  it('drops omitted labels before dropping the last whole item', () => {
    const items = Array.from({ length: 30 }, (_, i) => ({ path: `src/file-${i}.ts`, start_line: i, text: 'x'.repeat(40) }));
    const one = counter.count(JSON.stringify({ ok: true, data: { results: items.slice(0, 1) }, error: null, meta: { truncated: true, bytes: 200000, warnings: ['result cut to fit max_tokens=999'], omitted: [{ field: 'results', count: 29 }] } }));
    const env = boundEnvelope({ ok: true, data: { results: items }, error: null, warnings: [] }, { list: 'results', label }, { maxTokens: one + 5, counter });
    expect((env.data as { results: unknown[] }).results).toHaveLength(1);
    expect(env.meta.omitted).toEqual([{ field: 'results', count: 29 }]);
  });

  it('enforces the 200 KB cap without max_tokens', () => {
    const items = Array.from({ length: 400 }, (_, i) => ({ path: `p${i}`, start_line: i, text: 'y'.repeat(1000) }));
    const env = boundEnvelope({ ok: true, data: { results: items }, error: null, warnings: [] }, { list: 'results', label });
    expect(env.meta.bytes).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
    expect(env.meta.truncated).toBe(true);
    expect(env.meta.warnings).toContain('result cut to the 200000-byte cap');
    expect(env.meta.omitted![0]!.items).toHaveLength(20);
  });
});
