/**
 * The language-server layer (issue 21) with real servers: typescript-language-server and
 * pyright-langserver from scry's own devDependencies, over stdio. Names are chosen ambiguous
 * (two classes with a `get`, two with a `run`) so that by-name and by-type answers differ.
 * Timeouts are driven by an injected scheduler, never by waiting.
 */
import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { LspLayer } from '../../src/engine/lsp-layer.js';
import { pathInRoot } from '../../src/lsp/uri-paths.js';
import { silentLogger, type Scheduler } from '../../src/core/logger.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';
import { runCli } from '../helpers/cli.js';
import { runTool } from '../../src/tools/run-tool.js';

const TS_FILES = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true }, include: ['src'] }),
  'package.json': '{"type":"module"}',
  'src/a.ts': 'export class Alpha {\n  get(key: string): number {\n    return key.length;\n  }\n}\n',
  'src/b.ts': 'export class Beta {\n  get(index: number): string {\n    return String(index);\n  }\n}\n',
  'src/main.ts': "import { Alpha } from './a.js';\nimport { Beta } from './b.js';\n\nconst a = new Alpha();\nconst b = new Beta();\nexport const x = a.get('k');\nexport const y = b.get(2);\n",
  'src/bad.ts': "export const n: number = 'not a number';\n",
  'src/shape.ts': 'export interface Shape {\n  area(): number;\n}\n\nexport abstract class Figure {\n  abstract perimeter(): number;\n}\n',
  'src/circle.ts': "import { Figure, type Shape } from './shape.js';\n\nexport class Circle extends Figure implements Shape {\n  area(): number {\n    return 3;\n  }\n\n  perimeter(): number {\n    return 6;\n  }\n}\n",
  'src/square.ts': "import type { Shape } from './shape.js';\n\nexport class Square implements Shape {\n  area(): number {\n    return 4;\n  }\n}\n\nexport function sumOfAreas(shapes: Shape[]): number {\n  return shapes.reduce((n, s) => n + s.area(), 0);\n}\n",
};

const PY_FILES = {
  'pkg/__init__.py': '',
  'pkg/jobs.py': 'class Job:\n    def run(self) -> int:\n        return 1\n\n\nclass Task:\n    def run(self) -> str:\n        return "t"\n',
  'pkg/use.py': 'from pkg.jobs import Job, Task\n\nj = Job()\nt = Task()\nj.run()\nt.run()\nundefined_name.run()\n',
};

const LSP_ON = { lsp: { enabled: true, timeoutMs: 60_000 } };

describe('language servers: TypeScript (typescript-language-server)', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let byName: Engine;

  beforeAll(async () => {
    t = tempDir('scry-lsp-ts-');
    const root = join(t.dir, 'repo');
    mkdirSync(root);
    writeTree(root, TS_FILES);
    engine = await createEngine({ root, env: isolatedEnv(t.dir), config: LSP_ON });
    await engine.index();
    byName = await createEngine({ root, env: isolatedEnv(t.dir) });
  }, 120_000);

  afterAll(async () => {
    engine.close();
    byName.close();
    t.cleanup();
  });

  it('references by type name only the uses of that definition; by name, every get', async () => {
    const typed = await engine.references('src/a.ts#Alpha.get@2', { limit: 50 });
    expect(typed.resolution).toBe('lsp');
    const lines = typed.files.flatMap((f) => f.references.map((r) => `${f.path}:${r.line}`));
    expect(lines).toContain('src/main.ts:6');
    expect(lines).toContain('src/a.ts:2');
    expect(lines).not.toContain('src/main.ts:7');
    expect(lines).not.toContain('src/b.ts:2');
    const named = await byName.references('src/a.ts#Alpha.get@2', { limit: 50 });
    expect(named.resolution).toBe('name');
    const all = named.files.flatMap((f) => f.references.map((r) => `${f.path}:${r.line}`));
    expect(all).toEqual(expect.arrayContaining(['src/main.ts:6', 'src/main.ts:7', 'src/b.ts:2']));
  }, 120_000);

  it('a definition asked for at a use resolves to the one that use means', async () => {
    const atBeta = await engine.symbol('get', { at: { path: 'src/main.ts', line: 7 } });
    expect(atBeta.resolution).toBe('lsp');
    expect(atBeta.symbol.path).toBe('src/b.ts');
    const atAlpha = await engine.symbol('get', { at: { path: 'src/main.ts', line: 6 } });
    expect(atAlpha.symbol.path).toBe('src/a.ts');
    // by name, the first definition whatever the use
    const named = await byName.symbol('get', { at: { path: 'src/main.ts', line: 7 } });
    expect(named.resolution).toBe('name');
    expect(named.fallback).toBe('lsp.enabled is false');
  }, 120_000);

  it('diagnostics come from the server when it runs, else from the TypeScript compiler API', async () => {
    const fromServer = await engine.diagnostics('src/bad.ts');
    expect(fromServer.source).toBe('lsp:typescript');
    expect(fromServer.diagnostics.map((d) => d.code)).toContain('TS2322');
    const fromApi = await byName.diagnostics('src/bad.ts');
    expect(fromApi.source).toMatch(/^typescript-api \d+\.\d+\.\d+ \(tsconfig\.json\); lsp\.enabled is false$/);
    expect(fromApi.diagnostics).toEqual([expect.objectContaining({ path: 'src/bad.ts', line: 1, severity: 'error', code: 'TS2322' })]);
    const tool = await runTool('get_diagnostics', { path: 'src/bad.ts' }, { engine, writePolicy: 'read-only' });
    expect(tool.meta.source).toBe('lsp:typescript');
    expect((tool.data as { source: string }).source).toBe('lsp:typescript');
    const none = await runTool('get_diagnostics', { path: 'src/a.ts' }, { engine: byName, writePolicy: 'read-only' });
    expect(none.meta.source).toMatch(/^typescript-api /);
    const project = await byName.diagnostics();
    expect(project.path).toBeNull();
    expect(project.diagnostics.map((d) => d.path)).toEqual(['src/bad.ts']);
  }, 120_000);

  it('retrieve_context with a cursor puts the server-resolved definitions around it first', async () => {
    const pack = await engine.context('what does this line return', { current: { path: 'src/main.ts', line: 7 }, tokens: 2000 });
    const paths = pack.sections.evidence.map((g) => g.path);
    // line 7 calls Beta's get through `b` (line 5): the server resolves b → line 5, Beta → b.ts, get → b.ts
    expect(paths[0]).toBe('src/b.ts');
    expect(pack.sections.evidence[0]!.pieces.some((p) => p.symbols.includes('Beta.get') || p.symbols.includes('Beta'))).toBe(true);
    const plain = await byName.context('what does this line return', { current: { path: 'src/main.ts', line: 7 }, tokens: 2000 });
    expect(plain.sections.evidence.flatMap((g) => g.pieces).some((p) => p.symbols.includes('Beta.get'))).toBe(false);
  }, 120_000);

  it('scry diagnostics prints the source first, then one line per diagnostic; --json without a path is the project', async () => {
    const r = await runCli(['diagnostics', 'src/bad.ts', '--db', byName.dbPath], { cwd: t.dir });
    expect(r.code).toBe(0);
    const [head, first] = r.stdout.split('\n');
    expect(head).toMatch(/^1 diagnostic\(s\) in src\/bad\.ts · source: typescript-api \S+ \(tsconfig\.json\); lsp\.enabled is false$/);
    expect(first).toMatch(/^src\/bad\.ts:1:\d+ {2}error {3}TS2322 {2}Type 'string' is not assignable to type 'number'/);
    const j = await runCli(['diagnostics', '--json', '--db', byName.dbPath], { cwd: t.dir });
    expect(JSON.parse(j.stdout)).toMatchObject({ path: null, total: 1, diagnostics: [{ path: 'src/bad.ts', code: 'TS2322' }] });
  }, 120_000);

  it('status lists the running server; index_status only when lsp is enabled', async () => {
    const ts = engine.status().languageServers.servers.find((s) => s.name === 'typescript');
    expect(ts?.state).toBe('running');
    expect(byName.status().languageServers.enabled).toBe(false);
    const on = await runTool('index_status', {}, { engine, writePolicy: 'read-only' });
    expect((on.data as { language_servers: Record<string, string> }).language_servers).toMatchObject({ typescript: 'running', python: 'found' });
    const off = await runTool('index_status', {}, { engine: byName, writePolicy: 'read-only' });
    expect(off.data).not.toHaveProperty('language_servers');
  });

  it('symbols: workspace/symbol adds what the name tiers miss, keeps what the index has, and says so', async () => {
    const typed = await engine.findSymbols('Areas', { limit: 20 });
    expect(typed).toMatchObject({ resolution: 'lsp', servers: ['typescript'] });
    expect(typed.symbols.map((h) => `${h.path}#${h.name}`)).toContain('src/square.ts#sumOfAreas');
    const named = await byName.findSymbols('Areas', { limit: 20 });
    expect(named.resolution).toBe('name');
    expect(named.symbols.map((h) => h.name)).not.toContain('sumOfAreas');
    const beta = await engine.findSymbols('Beta', { kind: 'class', limit: 20 });
    expect(beta.symbols.map((h) => [h.path, h.name, h.match])).toEqual([['src/b.ts', 'Beta', 'exact']]);
    const tool = await runTool('search_symbols', { name: 'Areas' }, { engine, writePolicy: 'read-only' });
    expect(tool.data).toMatchObject({ resolution: 'lsp', symbols: expect.arrayContaining([expect.objectContaining({ name: 'sumOfAreas', path: 'src/square.ts' })]) });
  }, 120_000);

  it('implementations of an interface and of its method, by the server; none by name, with the reason', async () => {
    const shape = await engine.symbol('src/shape.ts#Shape@1', { implementations: true });
    expect([...(shape.implementations ?? [])].sort()).toEqual(['src/circle.ts#Circle@3', 'src/square.ts#Square@3']);
    const perimeter = await engine.symbol('src/shape.ts#Figure.perimeter@6', { implementations: true });
    expect(perimeter.implementations).toEqual(['src/circle.ts#Circle.perimeter@8']);
    const plain = await engine.symbol('src/shape.ts#Shape@1');
    expect(plain).not.toHaveProperty('implementations');
    const named = await byName.symbol('src/shape.ts#Shape@1', { implementations: true });
    expect(named).toMatchObject({ implementations: [], implementationsFallback: 'lsp.enabled is false' });
    const tool = await runTool('get_symbol_definition', { symbol_id: 'src/shape.ts#Shape@1', implementations: true }, { engine, writePolicy: 'read-only' });
    expect((tool.data as { implementations: string[] }).implementations).toHaveLength(2);
  }, 120_000);

  it('concurrent queries on a document not yet analysed both get the typed answer', async () => {
    writeTree(engine.root, { 'src/c.ts': "import { Beta } from './b.js';\nexport const z = new Beta().get(3);\n" });
    const [one, two] = await Promise.all([engine.symbol('get', { at: { path: 'src/c.ts', line: 2 } }), engine.symbol('get', { at: { path: 'src/c.ts', line: 2 } })]);
    expect([one.resolution, one.symbol.path, two.resolution, two.symbol.path]).toEqual(['lsp', 'src/b.ts', 'lsp', 'src/b.ts']);
  }, 120_000);
});

describe('language servers: Python (pyright)', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;

  beforeAll(async () => {
    t = tempDir('scry-lsp-py-');
    // a `+` in the path: pyright answers with it percent-encoded (`%2B`), the same document
    const root = join(t.dir, 'py+repo');
    mkdirSync(root);
    writeTree(root, PY_FILES);
    engine = await createEngine({ root, env: isolatedEnv(t.dir), config: LSP_ON });
    await engine.index();
  }, 120_000);

  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('references of Task.run are its own call only', async () => {
    const typed = await engine.references('pkg/jobs.py#Task.run@7', { limit: 50 });
    expect(typed.resolution).toBe('lsp');
    const lines = typed.files.flatMap((f) => f.references.map((r) => `${f.path}:${r.line}`));
    expect(lines).toEqual(expect.arrayContaining(['pkg/jobs.py:7', 'pkg/use.py:6']));
    expect(lines).not.toContain('pkg/use.py:5');
  }, 120_000);

  it('symbols: pyright workspace/symbol finds both run methods and what only it matches', async () => {
    const run = await engine.findSymbols('run', { limit: 20 });
    expect(run).toMatchObject({ resolution: 'lsp', servers: ['python'] });
    expect(run.symbols.map((h) => `${h.container}.${h.name}`).sort()).toEqual(['Job.run', 'Task.run']);
    const members = await engine.findSymbols('Task.run', { limit: 20 });
    expect(members.symbols.map((h) => `${h.path}:${h.startLine}`)).toEqual(['pkg/jobs.py:7']);
    const fuzzy = await engine.findSymbols('ask', { kind: 'class', limit: 20 });
    expect(fuzzy.symbols.map((h) => [h.name, h.match])).toEqual([['Task', 'fuzzy']]);
  }, 120_000);

  it('implementations: pyright has no textDocument/implementation, so the reason is given, never an error', async () => {
    const def = await engine.symbol('pkg/jobs.py#Job@1', { implementations: true });
    expect(def).toMatchObject({ resolution: 'name', implementations: [], implementationsFallback: 'the language server python failed: it does not support textDocument/implementation' });
    // the server is not marked failed for it: references still resolve by type
    expect((await engine.references('pkg/jobs.py#Task.run@7', { limit: 50 })).resolution).toBe('lsp');
  }, 120_000);

  it('diagnostics from pyright name the undefined variable', async () => {
    const r = await engine.diagnostics('pkg/use.py');
    expect(r.source).toBe('lsp:python');
    expect(r.diagnostics.some((d) => d.line === 7 && /undefined_name/.test(d.message))).toBe(true);
  }, 120_000);
});

describe('language servers: scry symbols with lsp.enabled in scry.config.json', () => {
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => {
    t = tempDir('scry-lsp-cli-');
    writeTree(join(t.dir, 'repo'), { ...TS_FILES, 'scry.config.json': JSON.stringify({ lsp: { enabled: true, timeoutMs: 60_000 } }) });
  });
  afterAll(() => t.cleanup());

  it('--json carries resolution and servers; the text ends with where the matches came from', async () => {
    const db = join(t.dir, 'index.db');
    expect((await runCli(['index', join(t.dir, 'repo'), '--db', db], { cwd: t.dir })).code).toBe(0);
    const j = await runCli(['symbols', 'Areas', '--json', '--db', db], { cwd: t.dir });
    expect(j.code).toBe(0);
    const parsed = JSON.parse(j.stdout) as { resolution: string; servers: string[]; results: Array<{ name: string }> };
    expect(parsed).toMatchObject({ resolution: 'lsp', servers: ['typescript'] });
    expect(parsed.results.map((r) => r.name)).toContain('sumOfAreas');
    const text = await runCli(['symbols', 'Beta', '--kind', 'class', '--db', db], { cwd: t.dir });
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('names and language server (typescript)');
  }, 120_000);
});

/** Timers fired by the test, not by time. */
function manualScheduler(): Scheduler & { fire(): void; pending(): number } {
  let timers: Array<{ run: () => void; live: boolean }> = [];
  return {
    now: () => 0,
    schedule(_delay, run) {
      const timer = { run, live: true };
      timers.push(timer);
      return () => (timer.live = false);
    },
    fire() {
      const due = timers.filter((x) => x.live);
      timers = [];
      for (const x of due) x.run();
    },
    pending: () => timers.filter((x) => x.live).length,
  };
}

describe('language servers: a silent or crashing server falls back to names', () => {
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => {
    t = tempDir('scry-lsp-bad-');
    writeTree(t.dir, { 'silent.sh': '#!/bin/sh\nexec sleep 600\n', 'crash.sh': '#!/bin/sh\nexit 3\n', 'repo/src/a.ts': 'export const a = 1;\n' });
    chmodSync(join(t.dir, 'silent.sh'), 0o755);
    chmodSync(join(t.dir, 'crash.sh'), 0o755);
  });
  afterAll(() => t.cleanup());

  const slice = { path: 'src/a.ts', language: 'typescript', startLine: 1, endLine: 1, totalLines: 1, text: 'export const a = 1;\n', truncated: false, sha256: '' };
  const config = (command: string) => ({ enabled: true, servers: { typescript: { command, args: [] } }, idleMs: 60_000, timeoutMs: 5_000, maxMemoryMb: 512, searchPath: [] });

  it('a server that never answers times out (by the injected scheduler), is killed, and the answer says why', async () => {
    const scheduler = manualScheduler();
    const layer = new LspLayer(join(t.dir, 'repo'), config(join(t.dir, 'silent.sh')), silentLogger, scheduler);
    const pending = layer.resolve('definition', slice, 1, 14);
    while (scheduler.pending() === 0) await new Promise((r) => setImmediate(r));
    scheduler.fire();
    const result = await pending;
    expect(result).toEqual({ fallback: expect.stringContaining('did not answer initialize within 5000 ms') });
    const status = layer.status().find((s) => s.name === 'typescript');
    expect(status?.state).toBe('failed');
    await layer.close();
  });

  it('a server that exits at once is reported failed with its reason', async () => {
    const layer = new LspLayer(join(t.dir, 'repo'), config(join(t.dir, 'crash.sh')), silentLogger, manualScheduler());
    const result = await layer.resolve('references', slice, 1, 14);
    expect(result).toEqual({ fallback: expect.stringMatching(/failed: .*(exited|code 3|EPIPE|closed)/) });
    expect(layer.status().find((s) => s.name === 'typescript')).toMatchObject({ state: 'failed', hint: expect.any(String) });
    // workspace/symbol on the failed server: the reason, not an error
    expect(await layer.workspaceSymbols(slice, 'a')).toEqual({ fallback: expect.stringMatching(/failed: /) });
    await layer.close();
  });

  it('a server path outside the root, or through a link leaving it, is dropped', () => {
    const root = join(t.dir, 'repo');
    symlinkSync(t.dir, join(root, 'out'));
    expect(pathInRoot(root, pathToFileURL(join(root, 'src/a.ts')).href)).toBe('src/a.ts');
    expect(pathInRoot(root, pathToFileURL(join(t.dir, 'silent.sh')).href)).toBeUndefined();
    expect(pathInRoot(root, pathToFileURL(join(root, 'out/silent.sh')).href)).toBeUndefined();
    expect(pathInRoot(root, 'untitled:Untitled-1')).toBeUndefined();
  });
});
