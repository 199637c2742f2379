/** The engine's cache of identifier kinds (src/search/uses-cache.ts): keys, recency, the bound. */
import { describe, expect, it } from 'vitest';
import type { UseKind } from '../../../src/core/symbol.js';
import { UsesCache } from '../../../src/search/uses-cache.js';

const uses = (n: number): Map<number, UseKind> => new Map(Array.from({ length: n }, (_, i) => [i * 10, 'call' as UseKind]));

describe('UsesCache', () => {
  it('keys by content hash, language and name; null (no grammar) is an answer, undefined is not', () => {
    const cache = new UsesCache();
    cache.set('h1', 'typescript', 'foo', uses(2));
    cache.set('h1', 'ruby', 'foo', null);
    expect(cache.get('h1', 'typescript', 'foo')).toEqual(uses(2));
    expect(cache.get('h1', 'ruby', 'foo')).toBeNull();
    expect(cache.get('h2', 'typescript', 'foo')).toBeUndefined();
    expect(cache.get('h1', 'typescript', 'fo')).toBeUndefined();
    expect(cache.get('h1', 'javascript', 'foo')).toBeUndefined();
  });

  it('keeps at most maxUses occurrences (an entry weighs 1 + its occurrences), dropping the least recently used', () => {
    const cache = new UsesCache(10);
    cache.set('a', 'ts', 'x', uses(3)); // 4
    cache.set('b', 'ts', 'x', uses(3)); // 8
    expect(cache.get('a', 'ts', 'x')).toBeDefined(); // a is now the most recent
    cache.set('c', 'ts', 'x', uses(3)); // 12 > 10: b goes
    expect(cache.get('b', 'ts', 'x')).toBeUndefined();
    expect(cache.get('a', 'ts', 'x')).toBeDefined();
    expect(cache.get('c', 'ts', 'x')).toBeDefined();
    // replacing an entry does not count it twice
    cache.set('c', 'ts', 'x', uses(1));
    cache.set('d', 'ts', 'x', null);
    expect([cache.get('a', 'ts', 'x'), cache.get('c', 'ts', 'x'), cache.get('d', 'ts', 'x')].map((u) => u?.size ?? u)).toEqual([3, 1, null]);
    // one entry larger than the bound is still kept (the latest answer)
    cache.set('e', 'ts', 'x', uses(50));
    expect(cache.get('e', 'ts', 'x')?.size).toBe(50);
  });
});
