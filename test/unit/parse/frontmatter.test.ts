import { describe, expect, it } from 'vitest';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { parseFrontmatter } from '../../../src/parse/frontmatter.js';
import { chunkMarkdown, markdownMetadata } from '../../../src/parse/markdown-chunker.js';

const CONFIG: ChunkConfig = { windowLines: 10, overlapLines: 2, maxBytes: 512 };
const lines = (...ls: string[]): string => ls.join('\n') + '\n';

describe('parseFrontmatter', () => {
  it('returns plain JSON values; timestamps become ISO strings', () => {
    const meta = parseFrontmatter(lines('title: Getting started', 'date: 2024-01-15', 'updated: 2024-02-01T10:30:00Z', 'draft: false', 'tags: [search, cli]', 'weight: 3', 'nested:', '  a: null', 'yes_is_a_string: yes'));
    expect(meta).toEqual({
      title: 'Getting started',
      date: '2024-01-15T00:00:00.000Z',
      updated: '2024-02-01T10:30:00.000Z',
      draft: false,
      tags: ['search', 'cli'],
      weight: 3,
      nested: { a: null },
      yes_is_a_string: 'yes',
    });
    expect(JSON.parse(JSON.stringify(meta))).toEqual(meta);
  });

  it('maps non-JSON numbers to null and keeps a __proto__ key as data', () => {
    const meta = parseFrontmatter(lines('inf: .inf', 'nan: .nan', '__proto__: { polluted: true }'));
    expect(meta).toEqual({ inf: null, nan: null, ['__proto__']: { polluted: true } });
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('returns undefined for invalid YAML, non-mappings and empty input', () => {
    expect(parseFrontmatter('title: [unclosed\n')).toBeUndefined();
    expect(parseFrontmatter('- a\n- b\n')).toBeUndefined();
    expect(parseFrontmatter('just text\n')).toBeUndefined();
    expect(parseFrontmatter('')).toBeUndefined();
    expect(parseFrontmatter('a: 1\n---\nb: 2\n')).toBeUndefined();
  });

  it('is bounded: over 64 KB, alias bombs and deep nesting give undefined', () => {
    expect(parseFrontmatter(`title: ${'x'.repeat(70_000)}\n`)).toBeUndefined();
    expect(parseFrontmatter(`title: ${'é'.repeat(33_000)}\n`)).toBeUndefined(); // 66 KB in UTF-8
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    expect(parseFrontmatter(lines(...laughs))).toBeUndefined();
    expect(parseFrontmatter(`a: ${'['.repeat(100)}${']'.repeat(100)}\n`)).toBeUndefined();
    expect(parseFrontmatter('a: &x { b: *x }\n')).toBeUndefined();
  });

  it('keeps a few aliases', () => {
    expect(parseFrontmatter(lines('base: &b { x: 1 }', 'copy: *b'))).toEqual({ base: { x: 1 }, copy: { x: 1 } });
  });
});

describe('markdownMetadata and the frontmatter chunk', () => {
  const doc = lines('---', 'title: "Install guide"', 'tags: [setup, npm]', 'keywords:', '  - install', '  - setup', '---', '', '# Install', 'body');

  it('parses the frontmatter block chunkMarkdown detects', () => {
    expect(markdownMetadata(doc)).toEqual({ title: 'Install guide', tags: ['setup', 'npm'], keywords: ['install', 'setup'] });
    expect(markdownMetadata(lines('---', 'a: 1', '...', 'text'))).toEqual({ a: 1 });
    expect(markdownMetadata(lines('# No frontmatter', '---', 'a: 1', '---'))).toBeUndefined();
    expect(markdownMetadata(lines('---', 'a: 1'))).toBeUndefined();
    expect(markdownMetadata(lines('---', 'not: [valid', '---'))).toBeUndefined();
    expect(markdownMetadata('')).toBeUndefined();
  });

  it('names the frontmatter chunk by its title and defines the title, tags and keywords', () => {
    const [fm] = chunkMarkdown(doc, CONFIG);
    expect(fm).toMatchObject({ kind: 'frontmatter', startLine: 1, endLine: 7, symbol: 'Install guide', defines: ['Install guide', 'setup', 'npm', 'install'] });
  });

  it('leaves the chunk unnamed when the title is missing or not a string', () => {
    const [a] = chunkMarkdown(lines('---', 'title: 42', 'tags: [x, 3]', '---', 'text'), CONFIG);
    expect(a).toMatchObject({ kind: 'frontmatter', symbol: undefined, defines: ['x'] });
    const [b] = chunkMarkdown(lines('---', 'broken: [', '---', 'text'), CONFIG);
    expect(b?.symbol).toBeUndefined();
    expect(b?.defines).toBeUndefined();
  });
});
