import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import ignore from 'ignore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCollectionName, collectionIgnore, readRegistry, registryPath, writeRegistry, type CollectionEntry } from '../../../src/config/collections.js';
import { isEngineError } from '../../../src/core/errors.js';
import { caught } from '../../helpers/caught.js';
import { tempDir } from '../../helpers/temp.js';

const entry = (name: string): CollectionEntry => ({ name, id: 'a1b2c3d4e5f60718', root: '/srv/notes', include: ['**/*.md'], exclude: [], types: ['docs'], recency: 0.15 });

describe('collection registry', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  it('is empty when the file does not exist, and round-trips what was written', () => {
    expect(readRegistry(t.dir)).toEqual({ version: 1, collections: [] });
    writeRegistry(t.dir, { version: 1, collections: [entry('notes')] });
    expect(readRegistry(t.dir).collections).toEqual([entry('notes')]);
    // atomic: the temp file was renamed into place, none left behind
    expect(readdirSync(t.dir)).toEqual(['collections.json']);
  });

  it.each([
    ['not JSON', '{"version": 1, "collections": ['],
    ['a wrong version', '{"version": 2, "collections": []}'],
    ['an entry without a root', JSON.stringify({ version: 1, collections: [{ ...entry('a'), root: undefined }] })],
    ['a duplicate name', JSON.stringify({ version: 1, collections: [entry('a'), entry('a')] })],
    ['an unknown content type', JSON.stringify({ version: 1, collections: [{ ...entry('a'), types: ['pdfs'] }] })],
    ['a recency out of range', JSON.stringify({ version: 1, collections: [{ ...entry('a'), recency: 3 }] })],
  ])('reports %s as COLLECTION_REGISTRY_CORRUPT and leaves the file as it was', (_what, text) => {
    writeFileSync(registryPath(t.dir), text);
    const err = caught(() => readRegistry(t.dir));
    expect(isEngineError(err, 'COLLECTION_REGISTRY_CORRUPT')).toBe(true);
    expect(readFileSync(registryPath(t.dir), 'utf8')).toBe(text);
  });

  it('refuses names that are not plain, and the reserved name project', () => {
    for (const bad of ['', 'a/b', '../x', '-x', 'x'.repeat(65), 'project', 'a b']) expect(isEngineError(caught(() => checkCollectionName(bad)), 'INVALID_ARGUMENT')).toBe(true);
    for (const good of ['notes', 'Mail-2024', 'a.b_c']) expect(() => checkCollectionName(good)).not.toThrow();
  });

  it('turns include globs into ignore rules that keep exactly the included files', () => {
    const ig = ignore().add(collectionIgnore({ include: ['**/*.md', 'mail/*.eml'], exclude: ['drafts/'] }));
    expect(ig.ignores('notes/a.md')).toBe(false);
    expect(ig.ignores('mail/x.eml')).toBe(false);
    expect(ig.ignores('src/a.ts')).toBe(true);
    expect(ig.ignores('drafts/a.md')).toBe(true);
    expect(ig.ignores('notes/')).toBe(false); // directories stay walkable
    expect(collectionIgnore({ include: [], exclude: ['x/'] })).toEqual(['x/']);
    expect(existsSync(registryPath(t.dir))).toBe(false);
  });
});
