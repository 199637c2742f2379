import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, EngineError, type ChangeRequest, type Engine } from '../../src/index.js';
import type { Envelope } from '../../src/tools/envelope.js';
import { runTool } from '../../src/tools/run-tool.js';
import type { WritePolicy } from '../../src/tools/tool.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const CONFIG = 'src/parse/configLoader.ts';
/** Changes the default port in configLoader.ts (a file without a final newline). */
const PORT_DIFF = [
  `--- a/${CONFIG}`,
  `+++ b/${CONFIG}`,
  '@@ -4,3 +4,3 @@',
  '   const value = JSON.parse(text);',
  '-  return { port: value.port ?? 8080 };',
  '+  return { port: value.port ?? zanzibarDefaultPort };',
  ' }',
  '\\ No newline at end of file',
  '',
].join('\n');

async function rejection(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error('expected the call to fail');
}

describe('write tools: staged, confirmed and atomic changes', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  const clock = { t: Date.now(), now() { return this.t; } };
  const read = (rel: string): string => readFileSync(join(root, rel), 'utf8');
  const call = (name: string, args: unknown, writePolicy: WritePolicy = 'stage'): Promise<Envelope> => runTool(name, args, { engine, writePolicy });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- envelope data is read field by field
  const data = (env: Envelope): Record<string, any> => env.data as Record<string, any>;

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(root);
    writeSmallRepo(root, { '.env': 'API_KEY=supersecret\n', 'node_modules/x.js': 'module.exports = 1;\n', 'win.txt': 'alpha\r\nbeta\r\ngamma\r\n' });
    clock.t = Date.now();
    engine = await createEngine({ root, env: isolatedEnv(t.dir), clock });
    await engine.index();
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('stages by default: the proposal comes back with its diff and hash, and the file is untouched', async () => {
    const before = { bytes: readFileSync(join(root, CONFIG)), mtime: statSync(join(root, CONFIG)).mtimeMs };
    const proposal = await engine.proposeChange({ kind: 'diff', diff: PORT_DIFF });
    expect(proposal.files).toEqual([{ path: CONFIG, status: 'modified', additions: 1, deletions: 1 }]);
    expect(proposal.diff).toContain(`diff --git a/${CONFIG} b/${CONFIG}\n`);
    const staged = await rejection(engine.applyChange({ kind: 'diff', diff: PORT_DIFF }));
    expect(staged.code).toBe('CONFIRMATION_REQUIRED');
    expect(staged.data).toEqual({ hash: proposal.hash, diff: proposal.diff, files: proposal.files });
    expect(readFileSync(join(root, CONFIG))).toEqual(before.bytes);
    expect(statSync(join(root, CONFIG)).mtimeMs).toBe(before.mtime);
  });

  it('applies with a host token, re-indexes the file, and refuses the token a second time', async () => {
    const request: ChangeRequest = { kind: 'diff', diff: PORT_DIFF };
    const { hash } = await engine.proposeChange(request);
    const token = engine.mintConfirmationToken({ hash });
    const applied = await engine.applyChange(request, { confirmationToken: token });
    expect(applied).toMatchObject({ hash, reindexed: 1, files: [{ path: CONFIG, status: 'modified' }] });
    expect(read(CONFIG)).toContain('value.port ?? zanzibarDefaultPort };\n}');
    expect(read(CONFIG).endsWith('}')).toBe(true); // still no final newline
    expect((await engine.search('zanzibarDefaultPort')).results[0]?.path).toBe(CONFIG);
    // the same token again, for a change that would apply
    const again = await rejection(engine.applyChange({ kind: 'edits', path: 'README.md', edits: [{ startLine: 1, startCol: 0, endLine: 1, endCol: 6, replacement: '# Example' }] }, { confirmationToken: token }));
    expect(again).toMatchObject({ code: 'TOKEN_INVALID', data: { rejection: 'used' } });
    expect(read('README.md')).toBe('# Demo\n\nA demo project for tests.\n');
  });

  it('refuses expired tokens, tokens bound to another change, and tokens from another engine', async () => {
    const request: ChangeRequest = { kind: 'diff', diff: PORT_DIFF };
    const original = read(CONFIG);
    const expired = engine.mintConfirmationToken({ ttlMs: 1000 });
    clock.t += 1000;
    expect(await rejection(engine.applyChange(request, { confirmationToken: expired }))).toMatchObject({ code: 'TOKEN_INVALID', data: { rejection: 'expired' } });

    const other = await engine.proposeChange({ kind: 'edits', path: 'README.md', edits: [{ startLine: 3, startCol: 0, endLine: 3, endCol: 1, replacement: 'One' }] });
    const bound = engine.mintConfirmationToken({ hash: other.hash });
    expect(await rejection(engine.applyChange(request, { confirmationToken: bound }))).toMatchObject({ code: 'TOKEN_INVALID', data: { rejection: 'hash_mismatch' } });

    const t2 = tempDir();
    try {
      writeSmallRepo(t2.dir);
      const otherEngine = await createEngine({ root: t2.dir, env: isolatedEnv(t2.dir) });
      const foreign = otherEngine.mintConfirmationToken();
      otherEngine.close();
      expect(await rejection(engine.applyChange(request, { confirmationToken: foreign }))).toMatchObject({ code: 'TOKEN_INVALID', data: { rejection: 'unknown' } });
    } finally {
      t2.cleanup();
    }
    expect(read(CONFIG)).toBe(original);
    // a refused token is not used up: the bound one still applies its own change
    await engine.applyChange({ kind: 'edits', path: 'README.md', edits: [{ startLine: 3, startCol: 0, endLine: 3, endCol: 1, replacement: 'One' }] }, { confirmationToken: bound });
    expect(read('README.md')).toBe('# Demo\n\nOne demo project for tests.\n');
  });

  it('a token bound to a proposal does not apply once the file has changed under it', async () => {
    const request: ChangeRequest = { kind: 'edits', path: 'README.md', edits: [{ startLine: 1, startCol: 2, endLine: 1, endCol: 6, replacement: 'Sample' }] };
    const { hash } = await engine.proposeChange(request);
    const token = engine.mintConfirmationToken({ hash });
    writeFileSync(join(root, 'README.md'), '# Demo project\n');
    expect(await rejection(engine.applyChange(request, { confirmationToken: token }))).toMatchObject({ code: 'TOKEN_INVALID', data: { rejection: 'hash_mismatch' } });
    expect(read('README.md')).toBe('# Demo project\n');
  });

  it('writes nothing when the second file of a two-file diff conflicts', async () => {
    const diff = [
      '--- a/README.md',
      '+++ b/README.md',
      '@@ -1,3 +1,3 @@',
      '-# Demo',
      '+# Renamed demo',
      ' ',
      ' A demo project for tests.',
      '--- a/config/app.yaml',
      '+++ b/config/app.yaml',
      '@@ -1,3 +1,3 @@',
      ' server:',
      '-  port: 9090',
      '+  port: 7070',
      '   retries: 3',
      '',
    ].join('\n');
    const token = engine.mintConfirmationToken();
    const err = await rejection(engine.applyChange({ kind: 'diff', diff }, { confirmationToken: token }));
    expect(err).toMatchObject({ code: 'PATCH_CONFLICT', data: { path: 'config/app.yaml', hunk: 1, line: 2, expected: '  port: 9090', found: '  port: 8080' } });
    expect(read('README.md')).toBe('# Demo\n\nA demo project for tests.\n');
    expect(read('config/app.yaml')).toBe('server:\n  port: 8080\n  retries: 3\n');
    // validation failed before the token was looked at: it is still good
    await engine.applyChange({ kind: 'diff', diff: diff.replace('port: 9090', 'port: 8080') }, { confirmationToken: token });
    expect(read('config/app.yaml')).toBe('server:\n  port: 7070\n  retries: 3\n');
  });

  it('refuses paths outside the root, links out of it, secrets and dependencies, writing nothing', async () => {
    const outside = tempDir('scry-outside-');
    try {
      writeFileSync(join(outside.dir, 'victim.ts'), 'export const v = 1;\n');
      symlinkSync(join(outside.dir, 'victim.ts'), join(root, 'src/link-out.ts'));
      const modify = (path: string, old: string, next: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-${old}\n+${next}\n`;
      const cases: Array<[string, string]> = [
        ['../escape.ts', '--- /dev/null\n+++ b/../escape.ts\n@@ -0,0 +1 @@\n+pwned\n'],
        ['absolute', `--- ${join(outside.dir, 'victim.ts')}\n+++ ${join(outside.dir, 'victim.ts')}\n@@ -1 +1 @@\n-export const v = 1;\n+pwned\n`],
        ['link out', modify('src/link-out.ts', 'export const v = 1;', 'pwned')],
        ['.env', modify('.env', 'API_KEY=supersecret', 'API_KEY=leaked')],
        ['new secret', '--- /dev/null\n+++ b/config/.env.local\n@@ -0,0 +1 @@\n+K=v\n'],
        ['node_modules', modify('node_modules/x.js', 'module.exports = 1;', 'module.exports = 2;')],
      ];
      for (const [label, diff] of cases) {
        // a good first file must not be written either
        const both = modify('README.md', '# Demo', '# Hacked') + diff;
        const env = await call('apply_unified_diff', { diff: both, confirmation_token: engine.mintConfirmationToken() });
        expect(env.ok, label).toBe(false);
        expect(env.error, label).toBe('permission_denied');
        expect(['PATH_OUTSIDE_ROOT', 'PATH_DENIED'], label).toContain(data(env).reason);
      }
      const edits = await call('apply_text_edits', { path: '../escape.ts', edits: [{ start_line: 1, start_col: 0, end_line: 1, end_col: 0, replacement: 'x' }] });
      expect(edits.error).toBe('permission_denied');
      expect(read('README.md')).toBe('# Demo\n\nA demo project for tests.\n');
      expect(read('.env')).toBe('API_KEY=supersecret\n');
      expect(read('node_modules/x.js')).toBe('module.exports = 1;\n');
      expect(readFileSync(join(outside.dir, 'victim.ts'), 'utf8')).toBe('export const v = 1;\n');
      expect(existsSync(join(t.dir, 'escape.ts'))).toBe(false);
      expect(existsSync(join(root, 'config/.env.local'))).toBe(false);
    } finally {
      outside.cleanup();
    }
  });

  it('adds and deletes files, and the index follows', async () => {
    const diff = [
      '--- /dev/null',
      '+++ b/src/feature/quokkaPlanner.ts',
      '@@ -0,0 +1,3 @@',
      '+export function planQuokkaRoute(stops: string[]): string[] {',
      '+  return [...stops].reverse();',
      '+}',
      'diff --git a/src/http/retry_policy.py b/src/http/retry_policy.py',
      'deleted file mode 100644',
      '--- a/src/http/retry_policy.py',
      '+++ /dev/null',
      '@@ -1,10 +0,0 @@',
      ...readFileSync(join(root, 'src/http/retry_policy.py'), 'utf8').split('\n').map((l) => `-${l}`),
      '\\ No newline at end of file',
      '',
    ].join('\n');
    const applied = await engine.applyChange({ kind: 'diff', diff }, { confirmationToken: engine.mintConfirmationToken() });
    expect(applied.files.map((f) => [f.path, f.status])).toEqual([['src/feature/quokkaPlanner.ts', 'added'], ['src/http/retry_policy.py', 'deleted']]);
    expect(applied.reindexed).toBe(2);
    expect(read('src/feature/quokkaPlanner.ts')).toBe('export function planQuokkaRoute(stops: string[]): string[] {\n  return [...stops].reverse();\n}\n');
    expect(existsSync(join(root, 'src/http/retry_policy.py'))).toBe(false);
    expect((await engine.search('planQuokkaRoute')).results[0]?.path).toBe('src/feature/quokkaPlanner.ts');
    expect((await engine.search('retry_with_backoff')).results).toHaveLength(0);
  });

  it('keeps CRLF line endings, for diffs and for edits', async () => {
    const token = () => engine.mintConfirmationToken();
    await engine.applyChange({ kind: 'diff', diff: '--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,4 @@\n alpha\n-beta\n+BETA\n+beta two\n gamma\n' }, { confirmationToken: token() });
    expect(read('win.txt')).toBe('alpha\r\nBETA\r\nbeta two\r\ngamma\r\n');
    await engine.applyChange({ kind: 'edits', path: 'win.txt', edits: [{ startLine: 4, startCol: 5, endLine: 4, endCol: 5, replacement: '\ndelta' }] }, { confirmationToken: token() });
    expect(read('win.txt')).toBe('alpha\r\nBETA\r\nbeta two\r\ngamma\r\ndelta\r\n');
  });

  it('runs through runTool: requires_confirmation with the proposal, then applies with the host token', async () => {
    const args = { diff: PORT_DIFF };
    const staged = await call('apply_unified_diff', args);
    expect(staged.ok).toBe(false);
    expect(staged.error).toBe('requires_confirmation');
    expect(data(staged)).toMatchObject({ reason: 'CONFIRMATION_REQUIRED', hash: expect.stringMatching(/^[0-9a-f]{64}$/), files: [{ path: CONFIG, status: 'modified', additions: 1, deletions: 1 }] });
    expect(data(staged).diff).toContain('+  return { port: value.port ?? zanzibarDefaultPort };');
    expect(data(staged).hint).toMatch(/host mints a token/);
    expect(read(CONFIG)).not.toContain('zanzibar');

    const token = engine.mintConfirmationToken({ hash: data(staged).hash });
    const done = await call('apply_unified_diff', { ...args, confirmation_token: token });
    expect(done.ok).toBe(true);
    expect(done.data).toEqual({ applied: true, hash: data(staged).hash, files: data(staged).files, reindexed: 1 });
    expect(read(CONFIG)).toContain('zanzibarDefaultPort');

    const reused = await call('apply_text_edits', { path: 'README.md', edits: [{ start_line: 1, start_col: 2, end_line: 1, end_col: 6, replacement: 'Sample' }], confirmation_token: token });
    expect(reused.error).toBe('permission_denied');
    expect(data(reused)).toMatchObject({ reason: 'TOKEN_INVALID', rejection: 'used' });
  });

  it('apply_text_edits: stages, applies, and refuses overlapping or out-of-range edits', async () => {
    const edits = [{ start_line: 1, start_col: 2, end_line: 1, end_col: 6, replacement: 'Sample' }];
    const staged = await call('apply_text_edits', { path: 'README.md', edits });
    expect(staged.error).toBe('requires_confirmation');
    expect(data(staged).diff).toBe('diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n-# Demo\n+# Sample\n \n A demo project for tests.\n');
    const done = await call('apply_text_edits', { path: 'README.md', edits, confirmation_token: engine.mintConfirmationToken({ hash: data(staged).hash }) });
    expect(done.ok).toBe(true);
    expect(read('README.md')).toBe('# Sample\n\nA demo project for tests.\n');

    const overlap = await call('apply_text_edits', { path: 'README.md', edits: [edits[0], { start_line: 1, start_col: 0, end_line: 1, end_col: 4, replacement: '' }] });
    expect(overlap.error).toBe('invalid_arguments');
    expect(data(overlap)).toMatchObject({ reason: 'PATCH_INVALID', edits: [1, 2] });
    const outOfRange = await call('apply_text_edits', { path: 'README.md', edits: [{ start_line: 40, start_col: 0, end_line: 40, end_col: 0, replacement: 'x' }] });
    expect(outOfRange.error).toBe('invalid_arguments');
    expect(data(outOfRange)).toMatchObject({ reason: 'PATCH_CONFLICT', path: 'README.md', line: 40 });
    const badShape = await call('apply_text_edits', { path: 'README.md', edits: [{ start_line: 0, start_col: 0, end_line: 1, end_col: 0, replacement: 'x' }] });
    expect(badShape.error).toBe('invalid_arguments');
    const tooMany = await call('apply_text_edits', { path: 'README.md', edits: Array.from({ length: 1001 }, () => ({ start_line: 1, start_col: 0, end_line: 1, end_col: 0, replacement: 'x' })) });
    expect(tooMany.error).toBe('too_large');
  });

  it('the autonomous policy mints its own token; the read-only policy offers no write tools', async () => {
    const env = await call('apply_unified_diff', { diff: PORT_DIFF }, 'autonomous');
    expect(env.ok).toBe(true);
    expect(data(env)).toMatchObject({ applied: true, reindexed: 1 });
    expect(read(CONFIG)).toContain('zanzibarDefaultPort');
    const readOnly = await call('apply_text_edits', { path: 'README.md', edits: [{ start_line: 1, start_col: 0, end_line: 1, end_col: 0, replacement: 'x' }] }, 'read-only');
    expect(readOnly.error).toBe('invalid_arguments');
    expect(data(readOnly).message).toMatch(/unknown tool/);
    expect(read('README.md')).toBe('# Demo\n\nA demo project for tests.\n');
  });

  it('cuts a huge staged diff to fit one tool result, keeping the full hash', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
    writeTree(root, { 'big.txt': `${lines.join('\n')}\n` });
    const diff = ['--- a/big.txt', '+++ b/big.txt', '@@ -1,4000 +1,4000 @@', ...lines.map((l) => `-${l}`), ...lines.map((l) => `+${l.toUpperCase()}`), ''].join('\n');
    const env = await call('apply_unified_diff', { diff });
    expect(env.error).toBe('requires_confirmation');
    expect(data(env)).toMatchObject({ diff_truncated: true, hash: (await engine.proposeChange({ kind: 'diff', diff })).hash });
    expect(env.meta.bytes).toBeLessThanOrEqual(200_000);
  });
});
