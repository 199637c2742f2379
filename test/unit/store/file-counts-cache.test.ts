/**
 * FileCountsCache (store/file-counts-cache.ts): the per-file counts of group expressions kept for
 * one data version, bounded by rows with the least recently used out first (issue 19, longcpu).
 */
import { describe, expect, it } from 'vitest';
import type { FileMatchCount } from '../../../src/store/chunk-files.js';
import { FileCountsCache, MAX_KEPT_ROWS } from '../../../src/store/file-counts-cache.js';

const rows = (n: number, path = 'a.ts'): FileMatchCount[] => Array.from({ length: n }, (_, i) => ({ path: `${path}${i}`, chunks: 1, lines: 10, contentType: 'code' }));

describe('FileCountsCache', () => {
  it('answers a kept expression at its version only, and a new version empties it', () => {
    const cache = new FileCountsCache();
    expect(cache.get('1:0', '"a"')).toBeUndefined();
    const a = rows(3);
    cache.set('1:0', '"a"', a);
    expect(cache.get('1:0', '"a"')).toBe(a);
    expect(cache.get('1:0', '"b"')).toBeUndefined();
    // another data version: nothing kept from the old one answers
    expect(cache.get('2:0', '"a"')).toBeUndefined();
    expect(cache.size).toBe(0);
    // a set for a version other than the one asked last is not kept
    cache.set('1:0', '"a"', a);
    expect(cache.get('2:0', '"a"')).toBeUndefined();
  });

  it('keeps at most MAX_KEPT_ROWS rows, the least recently used out first', () => {
    const cache = new FileCountsCache();
    const half = Math.floor(MAX_KEPT_ROWS / 2);
    cache.get('v', '"x"');
    cache.set('v', '"a"', rows(half));
    cache.set('v', '"b"', rows(half));
    // "a" used again: "b" is now the least recently used
    expect(cache.get('v', '"a"')).toBeDefined();
    cache.set('v', '"c"', rows(10));
    expect(cache.get('v', '"b"')).toBeUndefined();
    expect(cache.get('v', '"a"')).toBeDefined();
    expect(cache.get('v', '"c"')).toBeDefined();
    // a single answer over the bound is not kept, and evicts nothing
    cache.set('v', '"huge"', rows(MAX_KEPT_ROWS + 1));
    expect(cache.get('v', '"huge"')).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
