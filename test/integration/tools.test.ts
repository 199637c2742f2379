import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, loadTokenCounter, type Engine } from '../../src/index.js';
import { MAX_ENVELOPE_BYTES } from '../../src/tools/bound.js';
import { TOOLS, toolsFor } from '../../src/tools/catalog.js';
import { TOOL_ERROR_CODES, type Envelope } from '../../src/tools/envelope.js';
import { runTool } from '../../src/tools/run-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { backdate, writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

/** Every envelope, success or failure, has the same shape and stays under the cap. */
function expectEnvelope(env: Envelope): void {
  expect(Object.keys(env).sort()).toEqual(['data', 'error', 'meta', 'ok']);
  expect(typeof env.meta.truncated).toBe('boolean');
  expect(Array.isArray(env.meta.warnings)).toBe(true);
  expect(env.meta.bytes).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
  // meta.bytes is the real size (its own digits included, never understated)
  expect(Buffer.byteLength(JSON.stringify(env), 'utf8')).toBeLessThanOrEqual(env.meta.bytes);
  if (env.ok) expect(env.error).toBeNull();
  else {
    expect(TOOL_ERROR_CODES).toContain(env.error);
    expect(typeof (env.data as { message: string }).message).toBe('string');
  }
}

describe('agent tools over a real index', () => {
  let t: ReturnType<typeof tempDir>;
  let outside: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  let ctx: ToolContext;
  const call = async (name: string, args: unknown): Promise<Envelope> => {
    const env = await runTool(name, args, ctx);
    expectEnvelope(env);
    return env;
  };
  // envelope data is JSON of many shapes: tests read it loosely and assert on the values
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const data = (env: Envelope): Record<string, any> => env.data as Record<string, any>;

  beforeAll(async () => {
    t = tempDir();
    outside = tempDir('scry-outside-');
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root, {
      '.gitignore': 'generated/\n',
      'generated/out.ts': 'export const generatedThing = 1;\n',
      '.env': 'API_KEY=supersecret\n',
      '.github/workflows/ci.yml': 'name: ci\n',
      'src/big.txt': Array.from({ length: 30_000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n'),
    });
    writeFileSync(join(outside.dir, 'secret.ts'), 'export const outsideSecret = 42;\n');
    symlinkSync(join(outside.dir, 'secret.ts'), join(root, 'src/link-out.ts'));
    symlinkSync(join(root, '.env'), join(root, 'notes.txt'));
    backdate(root, ['.gitignore', '.env', 'src/big.txt']);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    ctx = { engine, writePolicy: 'stage' };
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
    outside.cleanup();
  });

  it('declares every tool once, with a description that shows an example and a description on every field', () => {
    const names = TOOLS.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of ['search_code', 'search_docs', 'find_similar', 'search_symbols', 'get_symbol_definition', 'get_references', 'read_file', 'list_files', 'retrieve_context', 'index_status']) {
      expect(names).toContain(name);
    }
    for (const tool of TOOLS) {
      expect(tool.name).toMatch(/^[a-z][a-z_]+$/);
      expect(tool.description).toMatch(/Example: \{/);
      for (const [field, schema] of Object.entries(tool.input)) expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
    }
    expect(toolsFor('read-only').every((tool) => tool.readOnly)).toBe(true);
  });

  it('search_code finds code and not docs; search_docs finds docs', async () => {
    const code = await call('search_code', { query: 'retry with exponential backoff' });
    expect(code.ok).toBe(true);
    expect(data(code).results[0]).toMatchObject({ path: 'src/http/retry_policy.py', symbol: 'retry_with_backoff', language: 'python' });
    expect(data(code).results.every((r: { path: string }) => !r.path.endsWith('.md'))).toBe(true);
    // the default: hybrid with the built-in model for a natural-language question
    expect(data(code).mode).toBe('hybrid');
    const docs = await call('search_docs', { query: 'installation', max_results: 1 });
    expect(data(docs).results).toHaveLength(1);
    expect(data(docs).results[0]).toMatchObject({ path: 'docs/guide.md', symbol: 'Installation' });
  });

  it('search_code says when the requested mode is not available', async () => {
    const env = await call('search_code', { query: 'openDatabase', mode: 'hybrid' });
    expect(env.ok).toBe(true);
    expect(env.meta.warnings.join(' ')).toMatch(/mode hybrid is not available/);
  });

  it('find_similar finds the code a snippet resembles and leaves out the excluded file', async () => {
    const snippet = "const db = new Database(path);\ndb.pragma('journal_mode = WAL');";
    const env = await call('find_similar', { code_snippet: snippet });
    expect(data(env).results[0].path).toBe('src/db/open-database.ts');
    // the index has the built-in model's vectors (the default): similarity by vectors, no lexical fallback
    expect(env.meta.warnings.join(' ')).not.toMatch(/lexical similarity/);
    const excluded = await call('find_similar', { code_snippet: snippet, exclude_file: 'src/db/open-database.ts' });
    expect(data(excluded).results.map((r: { path: string }) => r.path)).not.toContain('src/db/open-database.ts');
  });

  it('search_symbols ids round-trip through get_symbol_definition and get_references', async () => {
    const found = await call('search_symbols', { name: 'parseConfigFile' });
    const sym = data(found).symbols[0];
    expect(sym).toMatchObject({ id: 'src/parse/configLoader.ts#parseConfigFile@3', name: 'parseConfigFile', kind: 'function', path: 'src/parse/configLoader.ts', start_line: 3 });
    const def = await call('get_symbol_definition', { symbol_id: sym.id });
    expect(data(def).text.split('\n')[0]).toBe('export function parseConfigFile(text: string): LoadedConfig {');
    expect(data(def).end_line).toBe(6);
    const byName = await call('get_symbol_definition', { symbol_id: 'parseConfigFile' });
    expect(data(byName).id).toBe(sym.id);
    const refs = await call('get_references', { symbol_id: sym.id });
    expect(data(refs).files[0].path).toBe('src/parse/configLoader.ts');
    expect(data(refs).files[0].references[0]).toMatchObject({ line: 3, kind: 'definition' });
    expect(refs.meta.warnings.join(' ')).toMatch(/not type-resolved/);
  });

  it('a stale symbol id (the line moved) still resolves to the same definition in that file', async () => {
    const env = await call('get_symbol_definition', { symbol_id: 'src/parse/configLoader.ts#parseConfigFile@1' });
    expect(data(env).id).toBe('src/parse/configLoader.ts#parseConfigFile@3');
  });

  it('an unknown symbol id is not_found with close names', async () => {
    const env = await call('get_symbol_definition', { symbol_id: 'src/parse/configLoader.ts#parseConfigFil@3' });
    expect(env.error).toBe('not_found');
    expect(data(env).reason).toBe('SYMBOL_NOT_FOUND');
    expect(data(env).suggestions).toContain('src/parse/configLoader.ts#parseConfigFile@3');
  });

  it('read_file reads a line range from disk with a citation hash', async () => {
    const env = await call('read_file', { path: 'src/db/open-database.ts', start_line: 4, end_line: 5 });
    expect(data(env)).toMatchObject({ path: 'src/db/open-database.ts', start_line: 4, end_line: 5, total_lines: 9, truncated: false });
    expect(data(env).text).toBe('export function openDatabase(path: string) {\n  const db = new Database(path);');
    expect(data(env).sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('read_file stops at whole lines under max_bytes and says where to go on', async () => {
    const env = await call('read_file', { path: 'src/big.txt', max_bytes: 2048 });
    expect(data(env).truncated).toBe(true);
    expect(data(env).text.endsWith('x')).toBe(true);
    expect(Buffer.byteLength(data(env).text)).toBeLessThanOrEqual(2048);
    expect(env.meta.warnings.join(' ')).toMatch(new RegExp(`start_line ${data(env).end_line + 1}`));
  });

  it('read_file past the end of a file returns the rest with no "call again" warning', async () => {
    const env = await call('read_file', { path: 'src/db/open-database.ts', start_line: 8, end_line: 500 });
    expect(data(env)).toMatchObject({ start_line: 8, end_line: 9, total_lines: 9, truncated: false });
    expect(env.meta.warnings.join(' ')).not.toMatch(/call again/);
  });

  it('a missing path is not_found with "did you mean" suggestions', async () => {
    const env = await call('read_file', { path: 'src/db/open-databse.ts' });
    expect(env.error).toBe('not_found');
    expect(data(env).suggestions[0]).toBe('src/db/open-database.ts');
    const prefixless = await call('read_file', { path: 'db/open-database.ts' });
    expect(data(prefixless).suggestions[0]).toBe('src/db/open-database.ts');
  });

  it.each([
    ['../outside.ts', 'PATH_OUTSIDE_ROOT'],
    ['src/../../x.ts', 'PATH_OUTSIDE_ROOT'],
    ['/etc/passwd', 'PATH_OUTSIDE_ROOT'],
    ['src/link-out.ts', 'PATH_OUTSIDE_ROOT'],
    ['.env', 'PATH_DENIED'],
    ['notes.txt', 'PATH_DENIED'],
    ['generated/out.ts', 'PATH_DENIED'],
    ['node_modules/x/index.js', 'PATH_OUTSIDE_ROOT|PATH_DENIED|FILE_NOT_FOUND'],
  ])('read_file refuses %s', async (path, reason) => {
    const env = await call('read_file', { path });
    expect(env.ok).toBe(false);
    expect(data(env).reason).toMatch(new RegExp(`^(${reason})$`));
    if (data(env).reason !== 'FILE_NOT_FOUND') expect(env.error).toBe('permission_denied');
    expect(JSON.stringify(env)).not.toContain('supersecret');
    expect(JSON.stringify(env)).not.toContain('outsideSecret');
  });

  it('list_files lists indexed files by glob, hides dot-directories unless asked', async () => {
    const env = await call('list_files', { glob: 'src/**/*.ts' });
    expect(data(env).files.map((f: { path: string }) => f.path)).toEqual(['src/db/open-database.ts', 'src/parse/configLoader.ts']);
    const all = await call('list_files', {});
    const paths = data(all).files.map((f: { path: string }) => f.path);
    expect(paths).not.toContain('.github/workflows/ci.yml');
    expect(paths).not.toContain('.env');
    expect(paths).not.toContain('generated/out.ts');
    const hidden = await call('list_files', { include_hidden: true });
    expect(data(hidden).files.map((f: { path: string }) => f.path)).toContain('.github/workflows/ci.yml');
    const capped = await call('list_files', { limit: 2 });
    expect(data(capped).files).toHaveLength(2);
    expect(data(capped).total).toBeGreaterThan(2);
    expect(capped.meta.warnings.join(' ')).toMatch(/narrow the glob/);
  });

  it('retrieve_context packs the current file window, then whole cited chunks, within the token budget', async () => {
    const env = await call('retrieve_context', { query: 'open the sqlite database in WAL mode', current_path: 'src/parse/configLoader.ts', current_line: 3, tokens: 1500 });
    const d = data(env);
    expect(d.packer).toBe('context-pack');
    expect(d.tokens).toBeLessThanOrEqual(1500);
    expect(d.budget).toBe(1500);
    expect(d.current_file).toMatchObject({ path: 'src/parse/configLoader.ts', cursor_line: 3, start_line: 1 });
    expect(d.current_file.text).toContain('parseConfigFile');
    const ofDb = d.pieces.filter((p: { cite: string }) => p.cite.startsWith('src/db/open-database.ts:'));
    const wal = ofDb.find((p: { text: string }) => p.text.includes("db.pragma('journal_mode = WAL');"));
    expect(wal.hashes[0]).toMatch(/^[0-9a-f]{12}$/);
    expect(d.pieces.indexOf(wal)).toBeLessThan(3); // among the best
    // every piece cited (a line span, or a folder's or the repository's path for a summary); a
    // file's third chunk only comes after every file's first two
    const perFile = new Map<string, number>();
    let third = Infinity;
    (d.pieces as Array<{ cite: string; kind: string; rank?: number }>).forEach((p) => {
      expect(p.cite).toMatch(p.kind === 'summary' ? /^([^:]+:\d+-\d+|.*\/)$/ : /^[^:]+:\d+-\d+$/);
      if (p.kind !== 'chunk') return;
      const f = p.cite.split(':')[0]!;
      perFile.set(f, (perFile.get(f) ?? 0) + 1);
      if (perFile.get(f)! > 2) third = Math.min(third, perFile.size);
    });
    if (third !== Infinity) expect(env.meta.warnings ?? []).not.toContainEqual(expect.stringMatching(/did not fit the budget/));
  });

  it('retrieve_context stays inside a small budget and says what it left out', async () => {
    const env = await call('retrieve_context', { query: 'retry backoff database config parse open', tokens: 300 });
    expect(env.ok).toBe(true);
    expect(data(env).tokens).toBeLessThanOrEqual(300);
    const missing = await call('retrieve_context', { query: 'open database', current_path: 'no/such/file.ts' });
    expect(missing.ok).toBe(true);
    expect(missing.meta.warnings.join(' ')).toMatch(/current_path/);
  });

  it('index_status reports counts, freshness and capabilities', async () => {
    const env = await call('index_status', {});
    expect(data(env)).toMatchObject({ indexed: true, capabilities: { lexical: true, semantic: true, writes: 'stage', rerank: null } });
    expect(data(env).vectors).toBeGreaterThan(0);
    expect(data(env).files).toBeGreaterThanOrEqual(6);
    expect(data(env).freshness.last_pass_at).toMatch(/^\d{4}-/);
  });

  it.each([
    ['search_code', { query: 'x', max_results: 500 }, /max_results/],
    ['search_code', { query: 'x', bogus: 1 }, /unknown argument bogus/],
    ['search_code', {}, /query/],
    ['read_file', { path: 42 }, /path/],
    ['list_files', [1, 2], /must be a JSON object/],
    ['search_code', 'query', /must be a JSON object/],
    ['index_status', { max_tokens: 1 }, /max_tokens/],
  ])('%s with bad arguments is invalid_arguments and runs nothing', async (name, args, issue) => {
    const env = await call(name, args);
    expect(env.error).toBe('invalid_arguments');
    expect(`${data(env).message} ${(data(env).issues ?? []).join(' ')}`).toMatch(issue);
  });

  it('an unknown tool is invalid_arguments with a close name suggested', async () => {
    const env = await call('search_cod', {});
    expect(env.error).toBe('invalid_arguments');
    expect(data(env).suggestions).toEqual(['search_code']);
  });

  it('max_tokens cuts whole results from the end and lists what was left out', async () => {
    const full = await call('search_code', { query: 'port config database retry', max_results: 10 });
    const n = data(full).results.length;
    expect(n).toBeGreaterThan(2);
    const counter = await loadTokenCounter();
    const budget = counter.count(JSON.stringify(full)) - 60;
    const cut = await call('search_code', { query: 'port config database retry', max_results: 10, max_tokens: budget });
    expect(cut.ok).toBe(true);
    expect(cut.meta.truncated).toBe(true);
    expect(cut.meta.tokens).toBeLessThanOrEqual(budget);
    expect(counter.count(JSON.stringify(cut))).toBeLessThanOrEqual(budget + 2);
    const kept = data(cut).results.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(n);
    // whole results, in rank order: the kept ones are the first ones, unchanged
    expect(data(cut).results).toEqual(data(full).results.slice(0, kept));
    expect(cut.meta.omitted).toEqual([{ field: 'results', count: n - kept, items: data(full).results.slice(kept).map((r: { path: string; start_line: number; end_line: number }) => `${r.path}:${r.start_line}-${r.end_line}`) }]);
  });

  it('max_tokens cuts read_file at a line boundary; too small a budget is too_large', async () => {
    const env = await call('read_file', { path: 'src/big.txt', end_line: 400, max_tokens: 500 });
    expect(env.ok).toBe(true);
    expect(env.meta.tokens).toBeLessThanOrEqual(500);
    const text: string = data(env).text;
    const original = readFileSync(join(root, 'src/big.txt'), 'utf8').split('\n');
    expect(text.split('\n')).toEqual(original.slice(0, text.split('\n').length));
    expect(data(env).end_line).toBe(text.split('\n').length);
    const tiny = await call('search_code', { query: 'openDatabase', max_tokens: 64 });
    expect(tiny.error).toBe('too_large');
    expect(data(tiny).message).toMatch(/max_tokens=64/);
    expect(tiny.meta.tokens).toBeLessThanOrEqual(64);
  });

  it('the 200 KB cap holds for the largest read', async () => {
    const env = await call('read_file', { path: 'src/big.txt', max_bytes: 200_000 });
    expect(env.ok).toBe(true);
    expect(env.meta.bytes).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
  });
});
