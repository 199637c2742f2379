/**
 * Issue 24, "Install and MCP setup that work": the README's install for a user outside the
 * checkout, run exactly. `npm pack` → `npm install -g --prefix TMP <tarball>` → `scry mcp` started
 * by an MCP client from another directory, through the `scry` the install put on PATH; then a
 * consumer project type-checks (`strict`, `skipLibCheck: false`) against the tarball's declarations.
 *
 * Slow by nature (npm installs the dependencies: about a minute; nothing is compiled), so it
 * lives in its own lane: `npm run test:install`. Packages come from the registry through the
 * ordinary npm cache (`npm_config_cache`, default ~/.npm), so a second run downloads nothing.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { REPO, ensureFreshDist } from '../helpers/fresh-dist.js';
import { tempDir } from '../helpers/temp.js';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd: options.cwd, env: options.env ?? process.env, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** npm as a user runs it (their cache and registry), minus the noise. */
const npmEnv: NodeJS.ProcessEnv = { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
const npm = (args: readonly string[], cwd: string): SpawnSyncReturns<string> => run('npm', [...args, '--prefer-offline', '--no-progress'], { cwd, env: npmEnv });

let t: ReturnType<typeof tempDir>;
let tarball: string;
let prefix: string;
/** The installed package: <prefix>/lib/node_modules/scry. */
let installed: string;
let project: string;
/** A user's environment: the prefix's bin on PATH, home and scry cache in the temp dir. */
let userEnv: Record<string, string>;

beforeAll(() => {
  ensureFreshDist();
  t = tempDir('scry-install-');
  // the tarball as it would be published: dist/ is built above, so pack does not rebuild it
  const packed = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', t.dir], REPO);
  tarball = join(t.dir, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
  prefix = join(t.dir, 'prefix');
  npm(['install', '--global', '--prefix', prefix, tarball], t.dir);
  installed = join(prefix, 'lib', 'node_modules', 'scry');
  project = join(t.dir, 'project');
  writeSmallRepo(project);
  mkdirSync(join(t.dir, 'home'));
  userEnv = { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, HOME: join(t.dir, 'home'), SCRY_CACHE_DIR: join(t.dir, 'scry-cache') };
}, INSTALL_TIMEOUT_MS);

// two installed trees (~250 MB of small files): removing them takes a while on a busy disk
afterAll(() => t?.cleanup(), INSTALL_TIMEOUT_MS);

describe('the packed tarball, installed globally into a temporary prefix', () => {
  it('ships a LICENSE, the CLI and the declarations, and no model runtime (an explicit opt-in)', () => {
    for (const f of ['LICENSE', 'README.md', 'bin/scry.js', 'dist/index.js', 'dist/index.d.ts', 'dist/tools/index.d.ts']) expect(existsSync(join(installed, f)), f).toBe(true);
    const deps = readdirSync(join(installed, 'node_modules'));
    // the SQLite binding and its prebuilt binary for this platform, from the npm package itself
    expect(existsSync(join(installed, 'node_modules', '@photostructure', 'sqlite', 'prebuilds', `${process.platform}-${process.arch}`)), 'sqlite prebuilds').toBe(true);
    expect(deps).not.toContain('better-sqlite3');
    expect(deps).not.toContain('onnxruntime-node');
    expect(deps).not.toContain('@energetic-ai');
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'onnxruntime-node'))).toBe(false);
  });

  it('`scry` is on PATH and `scry status` says which model runtimes are installed', () => {
    const r = run('scry', ['status', '--json'], { cwd: project, env: userEnv });
    const status = JSON.parse(r.stdout) as { indexed: boolean; runtimes: Array<{ name: string; installed: boolean }> };
    expect(status.indexed).toBe(false);
    expect(status.runtimes).toEqual([expect.objectContaining({ name: 'onnx', installed: false }), expect.objectContaining({ name: 'use-lite', installed: false })]);
  });

  it('`scry mcp --root PROJECT`, started by an MCP client from another directory, lists its tools and answers search_code', async () => {
    const elsewhere = join(t.dir, 'elsewhere');
    mkdirSync(elsewhere);
    const transport = new StdioClientTransport({ command: 'scry', args: ['mcp', '--root', project], env: userEnv, cwd: elsewhere, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const client = new Client({ name: 'scry-install-test', version: '0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('search_code');
      const result = await client.callTool({ name: 'search_code', arguments: { query: 'open the sqlite database', max_results: 3 } });
      expect(result.isError, stderr).toBeFalsy();
      // the file that opens the database is among the hits (whatever shape the result takes)
      expect(JSON.stringify(result)).toContain('src/db/open-database.ts');
    } finally {
      await client.close();
    }
    // nothing written outside the scry cache: not the project, not the directory it was started from
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(existsSync(join(project, '.scry'))).toBe(false);
  }, 180_000);
});

describe('a consumer project type-checks against the tarball (strict, skipLibCheck: false)', () => {
  it('imports scry and scry/tools with no type errors, without any model runtime installed', () => {
    const consumer = join(t.dir, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // types need no native binary: skip install scripts here. A TypeScript project on Node brings
    // its own @types/node (`types: ['node']` below); scry's dependencies no longer pull it in.
    const typesNode = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@types/node']!;
    npm(['install', '--ignore-scripts', tarball, `@types/node@${typesNode}`], consumer);
    const tsconfig = { compilerOptions: { strict: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'] }, files: ['index.ts'] };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig));
    writeFileSync(
      join(consumer, 'index.ts'),
      [
        "import { createEngine, checkSearchRequest, type SearchResponse, type StatusReport } from 'scry';",
        "import { runTool } from 'scry/tools';",
        "const engine = await createEngine({ root: '.' });",
        "checkSearchRequest('open the database', { limit: 5 });",
        "const response: SearchResponse = await engine.search('open the database');",
        'const status: StatusReport = engine.status();',
        "const envelope = await runTool('search_code', { query: 'x' }, { engine, writePolicy: 'read-only' });",
        'console.log(response.results.length, status.runtimes.length, envelope.ok);',
        '',
      ].join('\n'),
    );
    expect(existsSync(join(consumer, 'node_modules', 'onnxruntime-node'))).toBe(false);
    const r = spawnSync(process.execPath, [TSC, '-p', consumer], { cwd: consumer, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  }, INSTALL_TIMEOUT_MS);
});
