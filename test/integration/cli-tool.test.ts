import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

describe('scry tool / scry tools', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const saved = { ...process.env };

  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root);
    Object.assign(process.env, isolatedEnv(t.dir));
  });
  afterAll(() => {
    process.env = saved;
    t.cleanup();
  });

  const tool = (args: string[], stdin?: string) => runCli(['tool', ...args], { cwd: root, stdin });

  it('runs a tool (indexing first) and prints its envelope; exit 0', async () => {
    const r = await tool(['read_file', '--args', '{"path": "src/db/open-database.ts", "start_line": 4, "end_line": 4}']);
    expect(r.code).toBe(0);
    const env = JSON.parse(r.stdout);
    expect(env).toMatchObject({ ok: true, error: null, data: { path: 'src/db/open-database.ts', text: 'export function openDatabase(path: string) {' } });
  });

  it('reads arguments from stdin with --args -', async () => {
    const r = await tool(['search_symbols', '--args', '-'], '{"name": "openDatabase"}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data.symbols[0].id).toBe('src/db/open-database.ts#openDatabase@4');
  });

  it('maps envelope errors to exit codes', async () => {
    const bad = await tool(['search_code', '--args', '{"query": "x", "max_results": 0}']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toBe('invalid_arguments');
    const missing = await tool(['read_file', '--args', '{"path": "src/nope.ts"}']);
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stdout).error).toBe('not_found');
    const outside = await tool(['read_file', '--args', '{"path": "../x"}']);
    expect(outside.code).toBe(6);
    expect(JSON.parse(outside.stdout).error).toBe('permission_denied');
  });

  it('rejects --args that are not JSON with a usage error', async () => {
    const r = await tool(['index_status', '--args', '{not json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/INVALID_ARGUMENT.*--args.*not valid JSON/s);
  });

  it('stages a write (exit 7, nothing written) and applies it with --confirm', async () => {
    const file = join(root, 'config/app.yaml');
    const before = readFileSync(file, 'utf8');
    const args = JSON.stringify({ path: 'config/app.yaml', edits: [{ start_line: 2, start_col: 8, end_line: 2, end_col: 12, replacement: '9090' }] });
    const staged = await tool(['apply_text_edits', '--args', args]);
    expect(staged.code).toBe(7);
    const env = JSON.parse(staged.stdout);
    expect(env.error).toBe('requires_confirmation');
    expect(env.data.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(env.data.diff).toContain('+  port: 9090');
    expect(readFileSync(file, 'utf8')).toBe(before);
    const applied = await tool(['apply_text_edits', '--args', args, '--confirm']);
    expect(applied.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before.replace('8080', '9090'));
    const readOnly = await tool(['apply_text_edits', '--args', args, '--read-only']);
    expect(readOnly.code).toBe(2);
    expect(JSON.parse(readOnly.stdout).data.message).toMatch(/unknown tool/);
  });

  it('scry tools lists the catalogue; --json adds JSON Schemas', async () => {
    const plain = await runCli(['tools'], { cwd: root });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^search_code\n/);
    const json = JSON.parse((await runCli(['tools', '--json'], { cwd: root })).stdout);
    const read = json.tools.find((x: { name: string }) => x.name === 'read_file');
    expect(read.inputSchema).toMatchObject({ type: 'object', additionalProperties: false, required: ['path'] });
    expect(read.inputSchema.properties.max_tokens.type).toBe('integer');
  });
});

describe('scry mcp flags', () => {
  it('refuses contradictory or misplaced flags before serving anything', async () => {
    const t = tempDir();
    try {
      const both = await runCli(['mcp', '--read-only', '--allow-writes', '--root', t.dir], { cwd: t.dir });
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/allow-writes.*contradicts --read-only/);
      const port = await runCli(['mcp', '--port', '9999', '--root', t.dir], { cwd: t.dir });
      expect(port.code).toBe(2);
      expect(port.stderr).toMatch(/only applies with --http/);
    } finally {
      t.cleanup();
    }
  });
});
