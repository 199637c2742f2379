/**
 * The text a model reads for each tool result type (src/tools/render/): golden files under
 * test/golden/tools/text/, one per result type, from fixed data; and the bounding of that text
 * (whole items dropped from the end, said so, never over the byte cap or max_tokens).
 */
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../../src/index.js';
import { resultText } from '../../../src/mcp/call-result.js';
import { TOOLS } from '../../../src/tools/catalog.js';
import type { Envelope } from '../../../src/tools/envelope.js';
import type { DataRenderer } from '../../../src/tools/render/envelope-text.js';
import { fenceFor, fitText, numberedLines, type TextDoc } from '../../../src/tools/render/text-doc.js';
import { expectGoldenText } from '../../helpers/golden-text.js';

const golden = (name: string): string => fileURLToPath(new URL(`../../golden/tools/text/${name}.txt`, import.meta.url));
const RERUN = 'npx vitest run test/unit/tools/render.test.ts';
const ok = (data: unknown, meta: Partial<Envelope['meta']> = {}): Envelope => ({ ok: true, data, error: null, meta: { truncated: false, bytes: 100, warnings: [], ...meta } });
const fail = (error: Envelope['error'], data: Record<string, unknown>): Envelope => ({ ok: false, data: data as never, error, meta: { truncated: false, bytes: 100, warnings: [] } });
const renderOf = (tool: string): DataRenderer => TOOLS.find((t) => t.name === tool)!.render as DataRenderer;
const text = (envelope: Envelope, tool: string | undefined, args: Record<string, unknown> = {}): string =>
  resultText(envelope, tool ? renderOf(tool) : undefined, args, { maxBytes: 200_000 });

const hit = { path: 'src/db/open.ts', start_line: 3, end_line: 6, score: 6.116, language: 'typescript', kind: 'function', symbol: 'open', container: 'Store', signature: 'open(path: string): Db', chunk_hash: 'abc123' };

/** One envelope per result type, with the tool whose renderer shows it and the call's arguments. */
const CASES: Record<string, { tool?: string; args?: Record<string, unknown>; envelope: Envelope }> = {
  'search-hits': {
    tool: 'search_code',
    args: { query: 'open the database' },
    envelope: ok(
      {
        results: [
          { ...hit, snippet: "  /** «Opens» the «database». */\n  open(path: string): Db {\n    return new Db(path);\n  }" },
          { path: 'docs/guide.md', start_line: 10, end_line: 14, score: 2.5, language: 'markdown', kind: 'section', symbol: 'Guide.Usage', snippet: 'Use it like this:\n```ts\nopen("x.db")\n```', chunk_hash: 'def456' },
        ],
        mode: 'lexical',
        terms: ['open', 'database'],
      },
      { truncated: true, omitted: [{ field: 'results', count: 3, items: ['src/a.ts:1-2', 'src/b.ts:3-4', 'src/c.ts:5-6'] }], warnings: ['result cut to fit max_tokens=500'] },
    ),
  },
  'text-matches': {
    tool: 'search_text',
    args: { query: 'TODO(' },
    envelope: ok({ matches: [{ path: 'src/a.ts', line: 4, column: 3, text: '// TODO(ann): retry' }, { path: 'src/b.ts', line: 9, column: 1, text: 'TODO(bob)' }], files_with_matches: 2, files_scanned: 40, truncated: true, case_sensitive: false }),
  },
  symbols: {
    tool: 'search_symbols',
    args: { name: 'open' },
    envelope: ok({
      symbols: [
        { id: 'src/db/open.ts#Store.open@3', name: 'open', kind: 'method', container: 'Store', signature: 'open(path: string): Db', path: 'src/db/open.ts', start_line: 3, end_line: 6, exported: false },
        { id: 'src/io.ts#openFile@10', name: 'openFile', kind: 'function', signature: '', path: 'src/io.ts', start_line: 10, end_line: 10, exported: true, match: 'prefix' },
      ],
    }),
  },
  definition: {
    tool: 'get_symbol_definition',
    envelope: ok({
      id: 'src/db/open.ts#Store.open@3', name: 'open', kind: 'method', container: 'Store', signature: 'open(path: string): Db', path: 'src/db/open.ts', start_line: 3, end_line: 12, exported: false,
      language: 'typescript', text: '  open(path: string): Db {\n    return new Db(path);', truncated: true, alternatives: ['src/other.ts#open@1'],
    }),
  },
  references: {
    tool: 'get_references',
    envelope: ok({
      name: 'open', total: 5, truncated: true,
      files: [
        { path: 'src/a.ts', references: [{ line: 3, column: 10, kind: 'call', text: 'const db = open(p);' }, { line: 1, column: 1, kind: 'import', text: "import { open } from './db';" }] },
        { path: 'docs/x.md', references: [{ line: 7, column: 4, kind: 'mention', text: 'call `open` first' }] },
      ],
    }),
  },
  related: {
    tool: 'related_files',
    envelope: ok({ path: 'src/db/open.ts', total: 3, files: [{ path: 'test/open.test.ts', score: 3.25, reasons: ['its test', 'imports it'], relations: { test: true, imports: true } }, { path: 'src/app.ts', score: 1.1234, reasons: ['calls open()'], relations: { callers: ['open'] } }] }),
  },
  'file-slice': {
    tool: 'read_file',
    envelope: ok({ path: 'src/md.ts', language: 'typescript', start_line: 9, end_line: 11, total_lines: 40, truncated: false, sha256: 'a39d5dfffed6aa00', text: 'const fence = "```";\n\nexport { fence };' }),
  },
  'file-list': {
    tool: 'list_files',
    args: { glob: 'src/**' },
    envelope: ok({ total: 12, files: [{ path: 'src/a.ts', language: 'typescript', lines: 1, bytes: 20 }, { path: 'src/b.py', language: 'python', lines: 30, bytes: 900 }] }),
  },
  context: {
    tool: 'retrieve_context',
    args: { query: 'add a timeout' },
    envelope: ok({
      current_file: { path: 'src/net/client.ts', start_line: 40, end_line: 42, total_lines: 90, cursor_line: 41, text: 'export async function get(url: string) {\n  return fetch(url);\n}' },
      pieces: [
        { cite: 'src/net/retry.py:3-4', kind: 'chunk', symbols: ['retry'], hashes: ['167f14bc5e04'], text: 'def retry(fn):\n    return fn()' },
        { cite: 'src/net/:1-1', kind: 'summary', text: '2 files: client.ts, retry.py' },
      ],
      tokens: 180, budget: 1000, candidates: 6, packer: 'context-pack',
    }),
  },
  'repo-map': {
    tool: 'repo_map',
    envelope: ok({ text: 'src/db/\n  open.ts [util]\n    function open(path: string): Db\n', total_files: 3, included_files: 1, tokens: 20 }),
  },
  status: {
    tool: 'index_status',
    envelope: ok({ root: '/r', indexed: true, files: 3, languages: { typescript: 2, python: 1 }, freshness: { state: 'fresh', writer_pid: null, last_pass: { reason: 'startup', files_indexed: 3 } }, capabilities: { lexical: true, rerank: null } }),
  },
  applied: {
    tool: 'apply_unified_diff',
    envelope: ok({ applied: true, hash: 'a2eaf5', files: [{ path: 'README.md', status: 'modified', additions: 1, deletions: 1 }], reindexed: 1 }),
  },
  'error-invalid-arguments': {
    envelope: fail('invalid_arguments', { message: 'invalid arguments for read_file', reason: 'INVALID_ARGUMENT', issues: ['path: Invalid input: expected string, received number', 'max_results: is another name for limit; give one of them'] }),
  },
  'error-not-found': {
    envelope: fail('not_found', { message: 'no such file in the project: src/x.ts', hint: 'paths are relative to the project root', reason: 'FILE_NOT_FOUND', suggestions: ['src/a.ts', 'src/b.ts'], path: 'src/x.ts' }),
  },
  'error-staged-change': {
    envelope: fail('requires_confirmation', {
      message: 'the change is staged, not applied', hint: 'show the diff to the user', reason: 'CONFIRMATION_REQUIRED', hash: 'a2eaf5',
      files: [{ path: 'README.md', status: 'modified', additions: 1, deletions: 1 }], diff: '--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n',
    }),
  },
  'no-renderer': { envelope: ok({ done: true, count: 2, nested: { a: 'x' } }) },
};

describe('tool result text (golden)', () => {
  it.each(Object.keys(CASES))('%s', (name) => {
    const c = CASES[name]!;
    expectGoldenText(golden(name), text(c.envelope, c.tool, c.args), RERUN);
  });

  it('says when a language server joined the symbols, and lists implementations asked for', () => {
    const sym = { id: 'src/a.ts#Alpha@1', name: 'Alpha', kind: 'class', signature: 'class Alpha', path: 'src/a.ts', start_line: 1, end_line: 3, exported: true };
    const meta = { truncated: false, bytes: 0, warnings: [] };
    expect(text({ ok: true, data: { symbols: [sym], resolution: 'lsp' }, error: null, meta }, 'search_symbols', { name: 'lph' })).toContain('1 definition for "lph" (names and language server)');
    expect(text({ ok: true, data: { symbols: [sym], resolution: 'name' }, error: null, meta }, 'search_symbols', { name: 'lph' })).not.toContain('language server');
    const def = { ...sym, language: 'typescript', text: 'class Alpha {}', truncated: false, alternatives: [], resolution: 'name' };
    expect(text({ ok: true, data: { ...def, implementations: ['src/b.ts#Beta@2'] }, error: null, meta }, 'get_symbol_definition')).toContain('implementations: src/b.ts#Beta@2');
    expect(text({ ok: true, data: { ...def, implementations: [] }, error: null, meta }, 'get_symbol_definition')).toContain('implementations: none found');
    expect(text({ ok: true, data: def, error: null, meta }, 'get_symbol_definition')).not.toContain('implementations');
  });

  it('has a renderer for every tool of the catalogue', () => {
    for (const tool of TOOLS) expect(typeof tool.render, tool.name).toBe('function');
  });

  it('shows snippets as code: highlight marks removed, fences longer than any backtick run inside', () => {
    const out = text(CASES['search-hits']!.envelope, 'search_code', { query: 'open' });
    expect(out).not.toMatch(/[«»]/);
    expect(out).toContain('````markdown\nUse it like this:\n```ts');
    expect(fenceFor('a ````` b')).toBe('``````');
  });

  it('numbers the lines of a slice as the file has them', () => {
    expect(numberedLines('a\nb\n', 9)).toEqual([' 9  a', '10  b']);
  });
});

describe('fitText', () => {
  const doc = (items: string[]): TextDoc => ({ head: ['head line'], items, noun: 'results', tail: ['warning: tail line'] });

  it('returns the whole text when it fits', () => {
    expect(fitText(doc(['a', 'b']), { maxBytes: 1000 })).toBe('head line\n\na\n\nb\n\nwarning: tail line');
  });

  it('property: never over the byte cap; keeps a prefix of whole items and says how many were left out', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 80 }), { maxLength: 30 }), fc.integer({ min: 120, max: 2000 }), (items, maxBytes) => {
        const out = fitText(doc(items), { maxBytes });
        expect(Buffer.byteLength(out, 'utf8')).toBeLessThanOrEqual(maxBytes);
        const left = /\[(\d+) more results left out of this text to fit the \d+-byte cap\]/.exec(out);
        if (!left) {
          expect(out).toBe(fitText(doc(items), { maxBytes: 1e9 }));
          return;
        }
        const kept = items.length - Number(left[1]);
        expect(out.startsWith(fitText(doc(items.slice(0, kept)), { maxBytes: 1e9 }).replace(/\n\nwarning: tail line$/, ''))).toBe(true);
        expect(out).toContain('warning: tail line');
      }),
      { numRuns: 200 },
    );
  });

  it('cuts to max_tokens with the o200k counter', async () => {
    const counter = await loadTokenCounter();
    const items = Array.from({ length: 50 }, (_, i) => `${i}. src/file${i}.ts:1-10\n\`\`\`ts\nexport const value${i} = compute(${i});\n\`\`\``);
    const out = fitText(doc(items), { maxBytes: 200_000, maxTokens: 200, counter });
    expect(counter.count(out)).toBeLessThanOrEqual(200);
    expect(out).toMatch(/\[\d+ more results left out of this text to fit max_tokens=200\]/);
    expect(out).toContain('0. src/file0.ts:1-10');
  });

  it('cuts a head that alone is over the cap at a line, and says so', () => {
    const out = fitText({ head: Array.from({ length: 100 }, (_, i) => `line ${i}`), items: [], noun: 'lines' }, { maxBytes: 200 });
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(200);
    expect(out).toMatch(/^line 0\n[\s\S]*\n\[text cut after \d+ lines to fit the 200-byte cap\]$/);
  });
});
