import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { contentHash } from '../../src/core/hash.js';
import { createEngine, type Engine, type TextSearchResult } from '../../src/index.js';
import { clipLine, createTextScanCache, searchText } from '../../src/search/text-search.js';
import { IndexStore } from '../../src/store/index-store.js';
import type { Envelope } from '../../src/tools/envelope.js';
import { runTool } from '../../src/tools/run-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const FILES: Record<string, string> = {
  'src/auth/token.ts': [
    'export class AuthToken {',
    '  // TODO(ana): rotate keys',
    '  constructor(readonly value: string) {}',
    '}',
    'export function parseToken(raw: string): AuthToken {',
    '  return new AuthToken(raw.trim());',
    '}',
    '',
  ].join('\n'),
  'src/auth/session.ts': 'import { AuthToken } from "./token";\n// todo: expire sessions\nexport const authtoken_cache = new Map<string, AuthToken>();\n',
  'src/i18n/greet.ts': 'export const greetings = {\n  fr: "héllo wörld",\n  emoji: "😀 smile",\n  ja: "日本語テキスト",\n};\n',
  'src/win/crlf.ts': 'const a = 1;\r\nconst b = 2;\r\n// end;\r\n',
  'docs/guide.md': '# Guide\n\nCall parseToken() before use. TODO: write more.\n',
  'lib/many.txt': Array.from({ length: 40 }, (_, i) => `hit number ${i + 1}`).join('\n'),
};

describe('engine.searchText and the search_text tool', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let ctx: ToolContext;
  const lines = (r: TextSearchResult): string[] => r.matches.map((m) => `${m.path}:${m.line}:${m.column}`);

  beforeAll(async () => {
    t = tempDir();
    const root = join(t.dir, 'repo');
    writeTree(root, FILES);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    ctx = { engine, writePolicy: 'stage' };
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('finds a literal in every file, by path then line, with 1-based line and column', async () => {
    const r = await engine.searchText('parseToken');
    expect(lines(r)).toEqual(['docs/guide.md:3:6', 'src/auth/token.ts:5:17']);
    expect(r.matches[1]!.text).toBe('export function parseToken(raw: string): AuthToken {');
    expect(r).toMatchObject({ query: 'parseToken', caseSensitive: true, filesWithMatches: 2, filesScanned: 6, filesSkipped: 0, truncated: false, timedOut: false });
    expect(r.tookMs).toBeGreaterThanOrEqual(0);
    // punctuation is literal, not regex syntax
    expect(lines(await engine.searchText('TODO('))).toEqual(['src/auth/token.ts:2:6']);
  });

  it('uses smart case by default; case_sensitive overrides it', async () => {
    const smart = await engine.searchText('todo');
    expect(smart.caseSensitive).toBe(false);
    expect(lines(smart)).toEqual(['docs/guide.md:3:31', 'src/auth/session.ts:2:4', 'src/auth/token.ts:2:6']);
    expect(lines(await engine.searchText('TODO'))).toEqual(['docs/guide.md:3:31', 'src/auth/token.ts:2:6']);
    expect(lines(await engine.searchText('todo', { caseSensitive: true }))).toEqual(['src/auth/session.ts:2:4']);
    expect(lines(await engine.searchText('AUTHTOKEN', { caseSensitive: false, paths: 'src/auth/session.ts' }))).toEqual(['src/auth/session.ts:1:10', 'src/auth/session.ts:3:14']);
  });

  it('runs regexes with groups and anchors', async () => {
    const fns = await engine.searchText('^export (function|class) (\\w+)', { regex: true });
    expect(lines(fns)).toEqual(['src/auth/token.ts:1:1', 'src/auth/token.ts:5:1']);
    expect(lines(await engine.searchText('\\bnew \\w+[(<]', { regex: true }))).toEqual(['src/auth/session.ts:3:32', 'src/auth/token.ts:6:10']);
    expect(lines(await engine.searchText('^}$', { regex: true, paths: ['src/auth/**'] }))).toEqual(['src/auth/token.ts:4:1', 'src/auth/token.ts:7:1']);
  });

  it('counts columns in UTF-16 units after multi-byte characters', async () => {
    expect((await engine.searchText('wörld')).matches).toEqual([{ path: 'src/i18n/greet.ts', line: 2, column: 14, text: '  fr: "héllo wörld",' }]);
    expect(lines(await engine.searchText('smile'))).toEqual(['src/i18n/greet.ts:3:14']);
    expect(lines(await engine.searchText('テキスト'))).toEqual(['src/i18n/greet.ts:4:11']);
    expect(lines(await engine.searchText('SMILE', { caseSensitive: false }))).toEqual(['src/i18n/greet.ts:3:14']);
  });

  it('reads CRLF files as lines without \\r, so $ ends a line', async () => {
    const r = await engine.searchText(';$', { regex: true, paths: 'src/win' });
    expect(r.matches.map((m) => [m.line, m.text])).toEqual([[1, 'const a = 1;'], [2, 'const b = 2;'], [3, '// end;']]);
    expect((await engine.searchText('const b')).matches[0]!.text).toBe('const b = 2;');
  });

  it('filters by globs and directory prefixes', async () => {
    expect(lines(await engine.searchText('AuthToken', { paths: ['*.md'] }))).toEqual([]);
    expect(lines(await engine.searchText('TODO', { paths: 'docs' }))).toEqual(['docs/guide.md:3:31']);
    const r = await engine.searchText('AuthToken', { paths: ['src/auth/token.ts'] });
    expect(r.filesScanned).toBe(1);
    expect(r.matches.map((m) => m.line)).toEqual([1, 5, 6]);
  });

  it('stops at the limit and says more existed', async () => {
    const r = await engine.searchText('hit number', { limit: 5 });
    expect(r.matches.map((m) => m.line)).toEqual([1, 2, 3, 4, 5]);
    expect(r.truncated).toBe(true);
    const all = await engine.searchText('hit number', { limit: 40 });
    expect(all.matches).toHaveLength(40);
    expect(all.truncated).toBe(false);
    await expect(engine.searchText('x', { limit: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'limit' } });
    await expect(engine.searchText('x', { limit: 1001 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('rejects a bad regex with the regex engine message, and an empty query', async () => {
    await expect(engine.searchText('foo(bar', { regex: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/Unterminated group/) });
    await expect(engine.searchText('(?i)todo', { regex: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/case_sensitive/) });
    await expect(engine.searchText('')).rejects.toMatchObject({ code: 'QUERY_EMPTY' });
  });

  it('honours an aborted signal and the time limit', async () => {
    await expect(engine.searchText('x', { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
    // a clock that jumps 600 ms per reading: the 1 s deadline passes after the first file
    let now = 0;
    const spy = vi.spyOn(performance, 'now').mockImplementation(() => (now += 600));
    try {
      const r = await engine.searchText('hit', { timeoutMs: 1000 });
      expect(r.timedOut).toBe(true);
      expect(r.filesScanned).toBeLessThan(6);
    } finally {
      spy.mockRestore();
    }
  });

  it('search_text tool: snake_case data, a warning when truncated, labels for cut items', async () => {
    const env = (await runTool('search_text', { query: 'hit number', paths: ['lib/**'], limit: 3 }, ctx)) as Envelope<Record<string, unknown>>;
    expect(env.ok).toBe(true);
    expect(env.data).toEqual({
      matches: [1, 2, 3].map((n) => ({ path: 'lib/many.txt', line: n, column: 1, text: `hit number ${n}` })),
      files_with_matches: 1,
      files_scanned: 1,
      truncated: true,
      case_sensitive: false,
    });
    expect(env.meta.warnings.join('\n')).toMatch(/narrow with paths.*raise limit/);
    const regex = await runTool('search_text', { query: 'TODO\\(\\w+\\)', regex: true, case_sensitive: true }, ctx);
    expect((regex.data as { matches: unknown[] }).matches).toEqual([{ path: 'src/auth/token.ts', line: 2, column: 6, text: '  // TODO(ana): rotate keys' }]);
    expect(regex.meta.warnings).toEqual([]);
  });

  it('search_text tool: a bad regex or argument is invalid_arguments', async () => {
    const bad = await runTool('search_text', { query: '[unclosed', regex: true }, ctx);
    expect(bad).toMatchObject({ ok: false, error: 'invalid_arguments', data: { reason: 'INVALID_ARGUMENT' } });
    expect((bad.data as { message: string }).message).toMatch(/not a valid regular expression/);
    expect(await runTool('search_text', { query: '' }, ctx)).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect(await runTool('search_text', { query: 'x', limit: 500 }, ctx)).toMatchObject({ ok: false, error: 'invalid_arguments' });
  });
});

describe('searchText regex size cap', () => {
  it('skips files over 1 MiB in regex mode and counts them; literals still search them', async () => {
    const t = tempDir();
    try {
      const root = join(t.dir, 'repo');
      const big = `${Array.from({ length: 30_000 }, (_, i) => `filler line ${i} ${'y'.repeat(24)}`).join('\n')}\nneedle here\n`;
      writeTree(root, { 'big.txt': big, 'small.txt': 'needle too\n' });
      const engine = await createEngine({ root, env: isolatedEnv(t.dir), config: { maxFileBytes: 4_000_000 } });
      try {
        await engine.index();
        const re = await engine.searchText('needle\\s\\w+', { regex: true });
        expect(re.matches.map((m) => m.path)).toEqual(['small.txt']);
        expect(re).toMatchObject({ filesSkipped: 1, filesScanned: 1 });
        const lit = await engine.searchText('needle');
        expect(lit.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['big.txt:30001', 'small.txt:1']);
      } finally {
        engine.close();
      }
    } finally {
      t.cleanup();
    }
  });
});

/** A store holding exactly `files` (path → text), as an index pass would leave it. */
function storeWith(dir: string, files: ReadonlyArray<readonly [string, string]>): IndexStore {
  const store = IndexStore.open(join(dir, `p${Math.random().toString(36).slice(2)}.db`), { create: true });
  store.transaction(() => {
    for (const [path, text] of files) {
      const bytes = Buffer.from(text, 'utf8');
      const hash = contentHash(bytes);
      store.content.putBytes(hash, bytes);
      store.files.upsert({
        path, language: 'text', contentType: 'text', size: bytes.length, mtimeMs: 0, hash, encoding: 'utf-8', lineCount: 1,
        featureVersion: 1, indexedAtMs: 0, parser: 'window', fallback: null, metadata: null,
      });
    }
  });
  return store;
}

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Every matching line of every file, by path then line, tested one line at a time. */
function naiveSearch(files: ReadonlyArray<readonly [string, string]>, query: string, regex: boolean, cs: boolean): Array<{ path: string; line: number; column: number; text: string }> {
  const re = regex ? new RegExp(query, cs ? 'mu' : 'imu') : cs ? undefined : new RegExp(esc(query), 'i');
  const out: Array<{ path: string; line: number; column: number; text: string }> = [];
  for (const [path, text] of [...files].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    lines.forEach((raw, i) => {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      const at = re ? (re.exec(line)?.index ?? -1) : line.indexOf(query);
      if (at !== -1) out.push({ path, line: i + 1, column: at + 1, text: clipLine(line, at) });
    });
  }
  return out;
}

describe('searchText over a real store against a naive oracle', () => {
  // NUL bytes included: the SQL LIKE prefilter stops at a NUL, so such bodies must never be prefiltered
  const chars = ['a', 'b', 'A', 'B', 'k', '\u212A', 's', 'é', 'É', '😀', ' ', '_', '%', '\\', '(', '*', '?', '[', '\0', '\r', '1'];
  const text = fc.array(fc.constantFrom(...chars, '\n', '\n', '\r\n'), { maxLength: 40 }).map((a) => a.join(''));
  const corpus = fc.uniqueArray(fc.tuple(fc.constantFrom('a.txt', 'b/c.txt', 'b/d.ts', 'e.md', 'f'), text), { minLength: 1, maxLength: 5, selector: (f) => f[0] });
  const literal = fc.array(fc.constantFrom(...chars.filter((c) => c !== '\r')), { minLength: 1, maxLength: 3 }).map((a) => a.join(''));
  const regex = fc.constantFrom('a+b', 'a\\s*b', '^a', 'b$', '[ab]{2}', '\\d', 'A[^b]*b', '%_', '\\\\', '(?<=a)b', '\\0a', 'é|É', 'k', '\\bb', 'a\\*', '\\[b', '\\?');
  const query = fc.oneof(literal.map((q) => ({ q, regex: false })), regex.map((q) => ({ q, regex: true })));
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => {
    t = tempDir();
  });
  afterAll(() => t.cleanup());

  it('cold and warm (LIKE-prefiltered) scans both equal the oracle, with limit and truncation', async () => {
    await fc.assert(
      fc.asyncProperty(corpus, fc.array(fc.tuple(query, fc.boolean()), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 8 }), async (files, queries, limit) => {
        const store = storeWith(t.dir, files);
        const cache = createTextScanCache();
        try {
          for (let round = 0; round < 2; round++) {
            for (const [{ q, regex }, cs] of queries) {
              const expected = naiveSearch(files, q, regex, cs);
              const r = await searchText(store, q, { regex, caseSensitive: cs, limit }, cache);
              expect(r.matches).toEqual(expected.slice(0, limit));
              expect(r.truncated).toBe(expected.length > limit);
            }
          }
        } finally {
          store.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the store prefilter ignores ASCII case only when asked, and nothing else (the premise of skipping files there)', () => {
    const body = 'Ünïcode ÉCOLE ABC *x? [y]';
    const store = storeWith(t.dir, [['x', body]]);
    try {
      const hash = contentHash(Buffer.from(body));
      const has = (text: string, ignoreAsciiCase: boolean): boolean => store.content.bodiesContaining([hash], text, ignoreAsciiCase).has(hash);
      expect([has('abc', true), has('abc', false), has('ABC', false)]).toEqual([true, false, true]);
      expect([has('école', true), has('ÉCOLE', true), has('ünïcode', true)]).toEqual([false, true, false]);
      // wildcards are literal
      expect([has('a_c', true), has('%', true), has('A?C', false), has('*', false), has('[y]', false), has('[a]', false)]).toEqual([false, false, false, true, true, false]);
    } finally {
      store.close();
    }
  });
});
