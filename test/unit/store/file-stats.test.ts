/**
 * SearchRepo.fileStats (the collection statistics of long-text file scoring, issue 18): cached
 * until the index changes, on this connection or another one, and never served stale.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileRecord } from '../../../src/store/file-repo.js';
import { IndexStore } from '../../../src/store/index-store.js';
import { tempDir } from '../../helpers/temp.js';

const file = (path: string, lineCount: number): FileRecord => ({
  path,
  language: 'typescript',
  contentType: 'code',
  size: lineCount * 10,
  mtimeMs: 1,
  hash: `h-${path}`,
  encoding: 'utf8',
  lineCount,
  featureVersion: 1,
  indexedAtMs: 1,
  parser: 'tree-sitter',
  fallback: null,
  metadata: null,
});

describe('SearchRepo.fileStats', () => {
  let t: ReturnType<typeof tempDir>;
  let writer: IndexStore;
  let reader: IndexStore;
  beforeEach(() => {
    t = tempDir();
    const path = join(t.dir, 'index.db');
    writer = IndexStore.open(path, { create: true });
    reader = IndexStore.open(path, { create: false });
  });
  afterEach(() => {
    reader.close();
    writer.close();
    t.cleanup();
  });

  it('follows writes of this connection and commits of another', () => {
    writer.transaction(() => writer.files.upsert(file('a.ts', 10)));
    expect(writer.read(() => writer.search.fileStats())).toEqual({ files: 1, meanLines: 10 });
    expect(reader.read(() => reader.search.fileStats())).toEqual({ files: 1, meanLines: 10 });
    writer.transaction(() => writer.files.upsert(file('b.ts', 30)));
    // the writer's own write, then the reader's view of the other connection's commit
    expect(writer.read(() => writer.search.fileStats())).toEqual({ files: 2, meanLines: 20 });
    expect(reader.read(() => reader.search.fileStats())).toEqual({ files: 2, meanLines: 20 });
    // unchanged index: the same answer (from the cache)
    expect(reader.read(() => reader.search.fileStats())).toEqual({ files: 2, meanLines: 20 });
  });
});
