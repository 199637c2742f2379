import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileCandidate } from '../../../src/core/file.js';
import { contentHash } from '../../../src/core/hash.js';
import { walk } from '../../../src/discover/walk.js';
import { prepareBatch, prepareFile, type PrepareConfig } from '../../../src/indexer/prepare.js';
import type { FileParser } from '../../../src/parse/chunker.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const CONFIG = (root: string): PrepareConfig => ({ root, maxFileBytes: 1 << 20, chunk: { windowLines: 60, overlapLines: 8, maxBytes: 4096 }, syntax: true });

/** A parser that records each call and then fails: preparation must not reach it. */
function trapParser(): FileParser & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    parse(input) {
      calls.push(input.path);
      throw new Error(`parsed ${input.path}`);
    },
  };
}

function source(i: number): string {
  return `export function handler${i}(input: string): string {\n  return input.trim() + '${i}';\n}\n`;
}

describe('preparing files the index already holds', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const candidates = new Map<string, FileCandidate>();
  const hashes = new Map<string, string>();

  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    const files: Record<string, string | Buffer> = { 'bin/blob.ts': Buffer.from([0, 1, 2, 0, 0, 3]), 'notes/key.txt': '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n' };
    for (let i = 0; i < 50; i++) files[`src/f${i}.ts`] = source(i);
    files['lib/copy.ts'] = source(7);
    files['lib/copy.js'] = source(7);
    writeTree(root, files);
    walk({ root, maxFileBytes: 1 << 20, ignore: [], denylist: { add: [], remove: [] } }, { file: (c) => candidates.set(c.path, c), skip: () => {} });
    for (const [path, content] of Object.entries(files)) hashes.set(path, contentHash(typeof content === 'string' ? Buffer.from(content) : content));
  });
  afterAll(() => t.cleanup());

  it('a file whose stored hash is its hash comes back unchanged, unparsed, with its hash and size', () => {
    const parser = trapParser();
    const c = candidates.get('src/f3.ts')!;
    const prepared = prepareFile(CONFIG(root), parser, c, { stored: new Map([[c.path, hashes.get(c.path)!]]) });
    expect(prepared).toEqual({ known: 'unchanged', candidate: c, hash: hashes.get(c.path), size: source(3).length, language: 'typescript', contentType: 'code' });
    expect(parser.calls).toEqual([]);
  });

  it('a file with another stored hash, or none, is parsed', () => {
    const parser = trapParser();
    const c = candidates.get('src/f3.ts')!;
    expect(() => prepareFile(CONFIG(root), parser, c, { stored: new Map([[c.path, 'f'.repeat(64)]]) })).toThrow('parsed src/f3.ts');
    expect(() => prepareFile(CONFIG(root), parser, c, { stored: new Map([['src/f4.ts', hashes.get(c.path)!]]) })).toThrow('parsed src/f3.ts');
    expect(parser.calls).toEqual(['src/f3.ts', 'src/f3.ts']);
  });

  it('a file whose content another stored file has is reusable: asked by hash and language, not parsed', () => {
    const parser = trapParser();
    const asked: string[] = [];
    const reusable = (hash: string, language: string): boolean => {
      asked.push(`${language}:${hash}`);
      return language === 'typescript' && hash === hashes.get('src/f7.ts');
    };
    const ts = prepareFile(CONFIG(root), parser, candidates.get('lib/copy.ts')!, { reusable });
    expect(ts).toMatchObject({ known: 'reusable', hash: hashes.get('src/f7.ts'), language: 'typescript' });
    expect(asked).toEqual([`typescript:${hashes.get('src/f7.ts')}`]);
    // same bytes, another language: the chunks could differ, so it is parsed
    expect(() => prepareFile(CONFIG(root), parser, candidates.get('lib/copy.js')!, { reusable })).toThrow('parsed lib/copy.js');
    expect(parser.calls).toEqual(['lib/copy.js']);
  });

  it('refuses a file exactly as without hints, even when its hash is the stored one', () => {
    const parser = trapParser();
    const known = { stored: new Map(hashes), reusable: () => true };
    expect(prepareFile(CONFIG(root), parser, candidates.get('bin/blob.ts')!, known)).toMatchObject({ ok: false, reason: 'binary' });
    expect(prepareFile(CONFIG(root), parser, candidates.get('notes/key.txt')!, known)).toMatchObject({ ok: false, reason: 'secret' });
    expect(parser.calls).toEqual([]);
  });

  it('a batch of 50 touched files: all known, nothing parsed, no fallback noted', async () => {
    const batch = [...candidates.values()].filter((c) => c.path.startsWith('src/'));
    expect(batch).toHaveLength(50);
    const prepared = await prepareBatch(CONFIG(root), batch, { stored: new Map(hashes) });
    expect(prepared.files).toEqual([]);
    expect(prepared.fallbacks).toEqual([]);
    expect(prepared.known.map((k) => k.known)).toEqual(Array(50).fill('unchanged'));
    expect(prepared.known.map((k) => k.candidate.path).sort()).toEqual(batch.map((c) => c.path).sort());
  });

  it('without hints a batch is parsed as before: chunks, symbols, bytes', async () => {
    const prepared = await prepareBatch(CONFIG(root), [candidates.get('src/f1.ts')!, candidates.get('bin/blob.ts')!]);
    expect(prepared.known).toEqual([]);
    expect(prepared.files.map((f) => (f.ok ? [f.candidate.path, f.parser, f.symbols.map((s) => s.name)] : [f.candidate.path, f.reason]))).toEqual([
      ['src/f1.ts', 'tree-sitter', ['handler1']],
      ['bin/blob.ts', 'binary'],
    ]);
  });
});
