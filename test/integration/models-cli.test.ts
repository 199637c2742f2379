import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliRun } from '../helpers/cli.js';
import { refusedUrl } from '../helpers/chat-server.js';
import { embeddingRepo, startHubServer, type HubServer } from '../helpers/hub-server.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const NAME = 'test-org/mini-embed';

/** Runs the CLI as a child process without blocking this one (the hub server lives here). */
function spawnAsync(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<CliRun> {
  const child = startCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

describe('scry models', () => {
  let hub: HubServer;
  let t: ReturnType<typeof tempDir>;
  let project: string;
  let cache: string;
  const cli = (...args: string[]): Promise<CliRun> => runCli(['models', ...args], { cwd: project });

  beforeAll(async () => {
    hub = await startHubServer();
    t = tempDir('scry-models-cli-');
    project = join(t.dir, 'project');
    mkdirSync(project);
    cache = join(project, 'model-cache');
    // a relative models.dir is resolved against the project root
    writeFileSync(join(project, 'scry.config.json'), JSON.stringify({ models: { dir: './model-cache', hubUrl: hub.url } }));
  });
  afterAll(async () => {
    await hub.close();
    t.cleanup();
  });
  beforeEach(() => {
    hub.setRepo(NAME, embeddingRepo(1));
    hub.fault = () => undefined;
  });

  it('list on an empty cache', async () => {
    const human = await cli('list');
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toBe(`no models in ${cache}; pull one with \`scry models pull NAME\`\n`);
    expect(JSON.parse((await cli('list', '--json')).stdout)).toEqual({ dir: cache, models: [] });
  });

  it('pull, list, verify, remove: human output, --json shapes and exit codes', async () => {
    const pulled = await cli('pull', NAME, '--json');
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toBe(''); // no progress bar when stderr is not a terminal
    const p = JSON.parse(pulled.stdout);
    expect(Object.keys(p)).toEqual(['name', 'dir', 'revision', 'commit', 'hubUrl', 'model', 'files', 'bytes', 'replaced', 'tookMs']);
    expect(p).toMatchObject({ name: NAME, dir: join(cache, 'test-org--mini-embed'), revision: 'main', hubUrl: hub.url, model: 'onnx/model.onnx', replaced: false });
    expect(Object.keys(p.files[0])).toEqual(['path', 'size', 'sha256']);

    const again = await cli('pull', NAME);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^pulled ${NAME} \\(main @ ${p.commit.slice(0, 7)}, onnx/model.onnx, 5 files, [\\d.]+ KB\\) into .+ in [\\d.]+ s, replacing the previous copy\\n$`));

    const list = JSON.parse((await cli('list', '--json')).stdout);
    expect(list.dir).toBe(cache);
    expect(Object.keys(list.models[0])).toEqual(['name', 'dir', 'revision', 'commit', 'pulledAt', 'model', 'files', 'bytes', 'ok', 'problems']);
    expect(list.models[0]).toMatchObject({ name: NAME, ok: true, commit: p.commit, bytes: p.bytes });
    const listHuman = (await cli('list')).stdout;
    expect(listHuman).toMatch(/^NAME +REVISION +COMMIT +MODEL +SIZE +PULLED \(UTC\) +STATUS\n/);
    expect(listHuman).toMatch(new RegExp(`${NAME} +main +${p.commit.slice(0, 7)} +onnx/model.onnx .* ok\\n1 model in `));

    const verify = await cli('verify', '--json');
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ dir: cache, ok: true, models: [{ name: NAME, ok: true, files: 5, problems: [] }] });
    expect((await cli('verify', NAME)).stdout).toMatch(/^ok {4}test-org\/mini-embed \(5 files, [\d.]+ KB\)\n$/);

    // tamper: verify fails with exit 1, naming the file
    writeFileSync(join(p.dir, 'tokenizer.json'), readFileSync(join(p.dir, 'tokenizer.json'), 'utf8').replace('WordPiece', 'WordPeace'));
    const bad = await cli('verify');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL {2}test-org\/mini-embed .*\n {8}tokenizer\.json: sha256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}\n$/);
    expect(bad.stderr).toContain('1 of 1 model failed verification');
    const badJson = await cli('verify', NAME, '--json');
    expect(badJson.code).toBe(1);
    expect(JSON.parse(badJson.stdout)).toMatchObject({ ok: false, models: [{ ok: false, problems: [{ kind: 'sha256', path: 'tokenizer.json' }] }] });
    expect((await cli('list', '--json')).code).toBe(0); // same size: list's cheap check does not see it

    const removed = await cli('remove', NAME, '--json');
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ name: NAME, dir: p.dir });
    expect(existsSync(p.dir)).toBe(false);
    const gone = await cli('verify', NAME);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/^scry: error \[MODEL_NOT_FOUND\]: no model test-org\/mini-embed in /);
    expect((await cli('remove', NAME)).code).toBe(3);
  });

  it('a name that is not a hub id is a usage error (exit 2), and nothing is requested', async () => {
    hub.requests.length = 0;
    for (const args of [['pull', '../../etc'], ['verify', 'a/b/c'], ['remove', '..']]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('[INVALID_ARGUMENT]');
    }
    const json = await cli('pull', 'x/../y', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    expect(hub.requests).toEqual([]);
    expect((await cli('pull')).code).toBe(2); // missing NAME
  });

  it('failures: unknown model exit 3, no ONNX export exit 2, a corrupt download exit 1 leaving the previous copy', async () => {
    expect((await cli('pull', 'nobody/nothing')).code).toBe(3);
    hub.setRepo('a/pytorch-only', embeddingRepo(2, { onnx: false }));
    const noOnnx = await cli('pull', 'a/pytorch-only');
    expect(noOnnx.code).toBe(2);
    expect(noOnnx.stderr).toContain('has no ONNX export');

    const first = JSON.parse((await cli('pull', NAME, '--json')).stdout);
    hub.setRepo(NAME, embeddingRepo(2));
    hub.fault = (r) => (r.route === 'cdn' ? { corrupt: true } : undefined);
    const corrupt = await cli('pull', NAME);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(/\[MODEL_INVALID\].*onnx\/model\.onnx: sha256/);
    expect(corrupt.stderr).toContain('previous copy');
    const after = JSON.parse((await cli('verify', NAME, '--json')).stdout);
    expect(after.ok).toBe(true);
    expect(JSON.parse((await cli('list', '--json')).stdout).models.find((m: { name: string }) => m.name === NAME).commit).toBe(first.commit);
    expect(readdirSync(cache).filter((e) => e.startsWith('.'))).toEqual([]);
  });

  it('--hub overrides models.hubUrl; a bad --hub is a usage error', async () => {
    const other = join(t.dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'scry.config.json'), JSON.stringify({ models: { dir: './m', hubUrl: await refusedUrl() } }));
    const refused = await runCli(['models', 'pull', NAME], { cwd: other });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('[IO_ERROR]');
    const viaFlag = await runCli(['models', 'pull', NAME, '--hub', hub.url, '--quantized', '--json'], { cwd: other });
    expect(viaFlag.code).toBe(0);
    expect(JSON.parse(viaFlag.stdout)).toMatchObject({ hubUrl: hub.url, dir: join(other, 'm', 'test-org--mini-embed') });
    // -C reads another project's config
    expect(JSON.parse((await runCli(['models', 'list', '-C', other, '--json'], { cwd: project })).stdout).dir).toBe(join(other, 'm'));
    expect((await runCli(['models', 'pull', NAME, '--hub', 'not a url'], { cwd: other })).code).toBe(2);
  });

  it('as a process: SCRY_CACHE_DIR moves the cache', async () => {
    const home = join(t.dir, 'home');
    mkdirSync(home);
    const env = isolatedEnv(home);
    const r = await spawnAsync(['models', 'pull', NAME, '--hub', hub.url], { cwd: home, env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(join(env.SCRY_CACHE_DIR!, 'models', 'test-org--mini-embed', 'scry-manifest.json'))).toBe(true);
    const v = await spawnAsync(['models', 'verify', '--json'], { cwd: home, env });
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout).models.map((m: { name: string }) => m.name)).toEqual([NAME]);
  });

  it('--help documents the subcommands', async () => {
    const help = await runCli(['models', '--help'], { cwd: project });
    expect(help.code).toBe(0);
    for (const sub of ['list', 'pull', 'remove', 'verify']) expect(help.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    const pull = await runCli(['models', 'pull', '--help'], { cwd: project });
    for (const flag of ['--revision', '--quantized', '--file', '--hub', '--json']) expect(pull.stdout).toContain(flag);
  });
});
