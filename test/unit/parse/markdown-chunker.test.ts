import { describe, expect, it } from 'vitest';
import type { ChunkDraft } from '../../../src/core/chunk.js';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { chunkMarkdown } from '../../../src/parse/markdown-chunker.js';

const CONFIG: ChunkConfig = { windowLines: 10, overlapLines: 2, maxBytes: 512 };
const md = (...lines: string[]): string => lines.join('\n') + '\n';
const summary = (chunks: ChunkDraft[]): string[] =>
  chunks.map((c) => `${c.kind} ${c.startLine}-${c.endLine} ${c.symbol ?? '-'} [${c.container ?? ''}]`);

/** Lines [from, to] (1-based, inclusive) of `text` are inside one chunk. */
function keptWhole(chunks: ChunkDraft[], from: number, to: number): boolean {
  return chunks.some((c) => c.startLine <= from && to <= c.endLine);
}

describe('chunkMarkdown: sections', () => {
  it('returns nothing for empty or blank text', () => {
    expect(chunkMarkdown('', CONFIG)).toEqual([]);
    expect(chunkMarkdown('\n \n', CONFIG)).toEqual([]);
  });

  it('cuts by headings with breadcrumbs; text before the first heading is its own chunk', () => {
    const text = md('Intro text.', '', '# A', 'a body', '## B', 'b body', '### C', 'c body', '## D', 'd body', '# E', 'e body');
    expect(summary(chunkMarkdown(text, CONFIG))).toEqual([
      'section 1-1 - []', 'section 3-4 A []', 'section 5-6 B [A]', 'section 7-8 C [A > B]', 'section 9-10 D [A]', 'section 11-12 E []',
    ]);
  });

  it('folds a body-less parent heading into its first child section', () => {
    const text = md('# Parent', '', '## Child', 'body', '## Sibling', 'body');
    expect(summary(chunkMarkdown(text, CONFIG))).toEqual(['section 1-4 Child [Parent]', 'section 5-6 Sibling [Parent]']);
  });

  it('also folds a body-less heading into a following sibling (current behaviour, see report)', () => {
    const text = md('## Empty', '', '## Next', 'body');
    expect(summary(chunkMarkdown(text, CONFIG))).toEqual(['section 1-4 Next []']);
  });

  it('keeps a body-less last heading as its own chunk', () => {
    expect(summary(chunkMarkdown(md('# A', 'body', '## Trailing'), CONFIG))).toEqual(['section 1-2 A []', 'section 3-3 Trailing [A]']);
  });

  it('strips ATX closing hashes and requires a space after the hashes', () => {
    const text = md('## Title ##', 'body', '#hashtag is text', '####### seven is text');
    expect(summary(chunkMarkdown(text, CONFIG))).toEqual(['section 1-4 Title []']);
  });

  it('reads setext headings from one-line paragraphs only', () => {
    const text = md('Title', '=====', 'intro', '', 'Sub', '---', 'body', '', 'two line', 'paragraph', '---', '', '- item', '---');
    expect(summary(chunkMarkdown(text, { ...CONFIG, windowLines: 20 }))).toEqual(['section 1-3 Title []', 'section 5-14 Sub [Title]']);
  });

  it('handles CRLF headings and byte ranges', () => {
    const text = '# One\r\nbody\r\n\r\n# Two\r\nmore\r\n';
    const chunks = chunkMarkdown(text, CONFIG);
    expect(summary(chunks)).toEqual(['section 1-2 One []', 'section 4-5 Two []']);
    expect(Buffer.from(text).subarray(chunks[1]!.startByte, chunks[1]!.endByte).toString()).toBe('# Two\r\nmore');
  });
});

describe('chunkMarkdown: frontmatter', () => {
  it('makes YAML frontmatter its own chunk', () => {
    const text = md('---', 'title: T', '---', '', '# H', 'body');
    expect(summary(chunkMarkdown(text, CONFIG))).toEqual(['frontmatter 1-3 T []', 'section 5-6 H []']);
  });

  it('accepts `...` as the closing line and ignores an unclosed opener', () => {
    expect(summary(chunkMarkdown(md('---', 'a: 1', '...', 'text'), CONFIG))[0]).toBe('frontmatter 1-3 - []');
    expect(summary(chunkMarkdown(md('---', 'not frontmatter'), CONFIG))).toEqual(['section 1-2 - []']);
  });

  it('splits frontmatter larger than maxBytes (regression: it used to be one oversized chunk)', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `key_${i}: ${'v'.repeat(30)}`);
    const chunks = chunkMarkdown(md('---', ...keys, '---', '# H', 'b'), CONFIG);
    const fm = chunks.filter((c) => c.kind === 'frontmatter');
    expect(fm.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(512);
  });
});

describe('chunkMarkdown: code fences', () => {
  it('ignores heading-like lines inside ``` and ~~~ fences, including nested longer fences', () => {
    const text = md('# Real', '```sh', '# comment', '```', '~~~', '## also code', '~~~', '````', '```', '# inside', '```', '````', 'end');
    expect(summary(chunkMarkdown(text, { ...CONFIG, windowLines: 20 }))).toEqual(['section 1-13 Real []']);
  });

  it('does not close a fence with a shorter or different fence, or one with an info string', () => {
    const text = md('# A', '````', '```', '~~~~', '```js', '# still code', '````', '# B', 'b');
    expect(summary(chunkMarkdown(text, CONFIG))).toEqual(['section 1-7 A []', 'section 8-9 B []']);
  });

  it('treats an unclosed fence as running to the end of the file', () => {
    expect(summary(chunkMarkdown(md('# A', '```', '# no', 'x'), CONFIG))).toEqual(['section 1-4 A []']);
  });

  it('never ends a chunk inside a fence that fits in maxBytes, even past windowLines', () => {
    const fence = ['```ts', ...Array.from({ length: 14 }, (_, i) => (i % 4 === 3 ? '' : `stmt(${i});`)), '```'];
    const text = md('# H', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', ...fence, 'after');
    const chunks = chunkMarkdown(text, CONFIG);
    const open = 8;
    const close = open + fence.length - 1;
    expect(keptWhole(chunks, open, close)).toBe(true);
    for (const c of chunks) expect(c.endLine < open || c.endLine >= close || c.endLine === c.startLine).toBe(true);
  });

  it('cuts inside a fence larger than maxBytes rather than exceeding it (regression)', () => {
    const fence = ['```', ...Array.from({ length: 40 }, (_, i) => `const value_${i} = compute(${i}); // ${'x'.repeat(20)}`), '```'];
    const chunks = chunkMarkdown(md('# Big code', ...fence, 'tail'), CONFIG);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.endByte - c.startByte).toBeLessThanOrEqual(512);
      expect(c.symbol).toBe('Big code');
    }
  });

  it('splits a long line inside a fence and keeps every chunk within maxBytes', () => {
    const chunks = chunkMarkdown(md('# H', '```', 'short', 'y'.repeat(1500), 'short', '```'), CONFIG);
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(512);
    expect(chunks.filter((c) => c.startLine === 4 && c.endLine === 4).length).toBeGreaterThanOrEqual(3);
  });
});

describe('chunkMarkdown: long sections', () => {
  it('splits a long section into windows that all carry the heading and breadcrumb, without overlap', () => {
    const body = Array.from({ length: 35 }, (_, i) => (i % 6 === 5 ? '' : `sentence ${i}.`));
    const chunks = chunkMarkdown(md('# Top', '## Long', ...body), CONFIG);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect([c.symbol, c.container]).toEqual(['Long', 'Top']);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.startLine).toBeGreaterThan(chunks[i - 1]!.endLine);
  });
});
