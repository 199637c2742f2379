/**
 * `scry ask` and `scry complete` as a user runs them: the BUILT bin/scry.js spawned with a
 * scry.config.json whose `llm` points at a LOCAL HTTP SERVER replaying scripted model turns in
 * the documented OpenAI-compatible / Ollama wire formats (test/helpers/scripted-model.ts). No
 * model is downloaded or run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { BIN, ensureFreshDist } from '../helpers/fresh-dist.js';
import { ollamaStream, openaiStream, openaiText, startScriptedModel, type ScriptedModel, type Turn } from '../helpers/scripted-model.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

let t: ReturnType<typeof tempDir>;
let root: string;
let model: ScriptedModel | undefined;

const env = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', ...isolatedEnv(t.dir), SCRY_TEST_LLM_KEY: 'sekrit-key' });

function configure(llm: Record<string, unknown> | undefined): void {
  writeFileSync(join(root, 'scry.config.json'), JSON.stringify(llm ? { llm } : {}));
}

async function serve(script: readonly Turn[], fallback?: Turn): Promise<ScriptedModel> {
  model = await startScriptedModel(script, fallback);
  return model;
}

/** Runs the CLI without blocking this process's event loop (the scripted server lives here). */
async function scry(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: root, env: env() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

beforeAll(() => {
  ensureFreshDist();
  t = tempDir('scry-cli-agent-');
  root = join(t.dir, 'repo');
  writeSmallRepo(root);
  // build the index once, so each command below starts from it
  const r = spawnSync(process.execPath, [BIN, 'index', root], { env: env(), encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}, 180_000);

afterEach(async () => {
  await model?.close();
  model = undefined;
});

afterAll(() => t?.cleanup());

describe('scry ask (CLI)', () => {
  it('refuses to run without an llm section (LLM_NOT_CONFIGURED, exit 2)', async () => {
    configure(undefined);
    const r = await scry(['ask', 'where is the retry?']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('LLM_NOT_CONFIGURED');
  });

  it('--json prints the answer, its citations and the transcript; the key comes from the env var named in config', async () => {
    const m = await serve([openaiText('Retries back off exponentially (src/http/retry_policy.py:3-9).')]);
    configure({ api: 'openai', baseUrl: m.openaiUrl, model: 'scripted', apiKeyEnv: 'SCRY_TEST_LLM_KEY' });
    const r = await scry(['ask', 'where do we retry with exponential backoff?', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { answer: string; citations: string[]; transcript: Array<{ type: string }> };
    expect(out.citations).toEqual(['src/http/retry_policy.py:3-9']);
    expect(out.transcript.map((e) => e.type)).toEqual(['retrieve', 'model']);
    expect(m.requests[0]!.authorization).toBe('Bearer sekrit-key');
    expect(r.stdout + r.stderr).not.toContain('sekrit-key');
  });

  it('exits 1 with the transcript when the model never cites (LLM_BUDGET_EXHAUSTED)', async () => {
    const m = await serve([], openaiText('I think it is fine.'));
    configure({ api: 'openai', baseUrl: m.openaiUrl, model: 'scripted', maxRounds: 2 });
    const r = await scry(['ask', 'is the retry policy fine?', '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { error: { code: string }; transcript: Array<{ type: string }> };
    expect(out.error.code).toBe('LLM_BUDGET_EXHAUSTED');
    expect(out.transcript.filter((e) => e.type === 'rejected_answer')).toHaveLength(2);
  });
});

describe('scry complete (CLI)', () => {
  it('streams the completion to stdout, cut at the stop sequence', async () => {
    const m = await serve([ollamaStream(['return { port', ': value.port };', '\n\nnot this'])]);
    configure({ api: 'ollama', baseUrl: m.ollamaUrl, model: 'chat', completionModel: 'coder' });
    const r = await scry(['complete', 'src/parse/configLoader.ts:5:3', '--rounds', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('return { port: value.port };\n');
    expect(m.requests[0]!.body).toMatchObject({ model: 'coder', raw: true });
  });

  it('rejects a cursor without a line (exit 2)', async () => {
    configure({ api: 'ollama', baseUrl: 'http://127.0.0.1:9', model: 'm' });
    const r = await scry(['complete', 'src/parse/configLoader.ts']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('INVALID_ARGUMENT');
  });

  it('stops on Ctrl-C (SIGINT) mid-stream with CANCELLED', async () => {
    const m = await serve([openaiStream(['ret'], { done: false, hang: true })]);
    configure({ api: 'openai', baseUrl: m.openaiUrl, model: 'm' });
    const child = spawn(process.execPath, [BIN, 'complete', 'src/parse/configLoader.ts:5:3', '--rounds', '1', '--stop', '@'], { cwd: root, env: env() });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    expect(first.toString()).toBe('ret');
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('CANCELLED');
  });
});
