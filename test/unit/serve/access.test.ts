/** Token scopes of `scry serve` (issue 23): who may read and push which repository. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveServeConfig, resolvePushToken } from '../../../src/config/serve.js';
import { isEngineError } from '../../../src/core/errors.js';
import { AccessControl, parseRepoList } from '../../../src/serve/access.js';

const A = 'token-aaaaaaaaaaaaaaaa';
const B = 'token-bbbbbbbbbbbbbbbb';
const ALL = 'token-cccccccccccccccc';
const tokens = { [A]: { read: ['alpha'], push: ['alpha'] }, [B]: { read: ['beta'], push: [] }, [ALL]: { read: ['*'], push: ['*'] } };

function code(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (err) {
    if (isEngineError(err)) return err.code;
    throw err;
  }
}

describe('AccessControl', () => {
  const access = new AccessControl({ tokens, anonymousRead: [] });

  it('refuses a missing, malformed or unknown token with AUTH_REQUIRED', () => {
    expect(code(() => access.authenticate(undefined))).toBe('AUTH_REQUIRED');
    expect(code(() => access.authenticate(''))).toBe('AUTH_REQUIRED');
    expect(code(() => access.authenticate(`Basic ${A}`))).toBe('AUTH_REQUIRED');
    expect(code(() => access.authenticate(`Bearer ${A}x`))).toBe('AUTH_REQUIRED');
    expect(code(() => access.authenticate(`Bearer ${A.slice(0, -1)}`))).toBe('AUTH_REQUIRED');
    expect(access.authenticate(`Bearer ${A}`).read).toEqual(['alpha']);
    expect(access.authenticate(`bearer   ${B} `).read).toEqual(['beta']);
  });

  it('a token for alpha reads and pushes alpha only; "*" covers every repository', () => {
    const a = access.authenticate(`Bearer ${A}`);
    const b = access.authenticate(`Bearer ${B}`);
    const all = access.authenticate(`Bearer ${ALL}`);
    expect(code(() => access.check(a, 'read', 'alpha'))).toBeUndefined();
    expect(code(() => access.check(a, 'read', 'beta'))).toBe('ACCESS_DENIED');
    expect(code(() => access.check(b, 'push', 'beta'))).toBe('ACCESS_DENIED');
    expect(code(() => access.check(all, 'push', 'anything'))).toBeUndefined();
    expect(access.readable(a, undefined, ['alpha', 'beta', 'gamma'])).toEqual(['alpha']);
    expect(access.readable(all, undefined, ['alpha', 'beta'])).toEqual(['alpha', 'beta']);
    expect(code(() => access.readable(a, ['alpha', 'beta'], []))).toBe('ACCESS_DENIED');
    expect(access.readable(a, ['alpha', 'alpha'], [])).toEqual(['alpha']);
  });

  it('anonymous reads only when configured, and never pushes', () => {
    const open = new AccessControl({ tokens, anonymousRead: ['docs'] });
    const anon = open.authenticate(undefined);
    expect(anon.read).toEqual(['docs']);
    expect(code(() => open.check(anon, 'push', 'docs'))).toBe('ACCESS_DENIED');
    expect(code(() => open.authenticate('Bearer not-a-known-token-at-all'))).toBe('AUTH_REQUIRED');
  });

  it('parses ?repo= lists and refuses names that are not repository names', () => {
    expect(parseRepoList(['a,b', 'c'])).toEqual(['a', 'b', 'c']);
    expect(parseRepoList(['', ' , '])).toBeUndefined();
    expect(parseRepoList(['org/app'])).toEqual(['org/app']);
    expect(code(() => parseRepoList(['../etc']))).toBe('INVALID_ARGUMENT');
    expect(code(() => parseRepoList(['a b']))).toBe('INVALID_ARGUMENT');
  });
});

describe('serve config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scry-serve-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('merges serve.tokens of the config file with SCRY_SERVE_TOKENS (the environment wins per token)', () => {
    writeFileSync(join(dir, 'scry.config.json'), JSON.stringify({ serve: { tokens: { [A]: { read: ['alpha'] }, [B]: { read: ['beta'] } }, maxBodyBytes: 100_000 } }));
    const c = resolveServeConfig({ cwd: dir, env: { SCRY_SERVE_TOKENS: JSON.stringify({ [B]: { read: ['gamma'], push: ['gamma'] } }) } });
    expect(c.tokens[A]).toEqual({ read: ['alpha'], push: [] });
    expect(c.tokens[B]).toEqual({ read: ['gamma'], push: ['gamma'] });
    expect(c.maxBodyBytes).toBe(100_000);
    expect(c.sources).toEqual(['defaults', join(dir, 'scry.config.json'), 'env:SCRY_SERVE_TOKENS']);
    expect(JSON.stringify(c.sources)).not.toContain(A);
  });

  it('refuses bad token JSON, short tokens and unknown keys with CONFIG_INVALID', () => {
    expect(code(() => resolveServeConfig({ cwd: tmpdir(), configFile: join(dir, 'missing.json'), env: {} }))).toBe('CONFIG_INVALID');
    expect(code(() => resolveServeConfig({ cwd: dir, env: { SCRY_SERVE_TOKENS: '{not json' } }))).toBe('CONFIG_INVALID');
    expect(code(() => resolveServeConfig({ cwd: dir, env: { SCRY_SERVE_TOKENS: JSON.stringify({ short: { read: ['a'] } }) } }))).toBe('CONFIG_INVALID');
    expect(code(() => resolveServeConfig({ cwd: dir, env: { SCRY_SERVE_TOKENS: JSON.stringify({ [A]: { read: ['a'], write: ['a'] } }) } }))).toBe('CONFIG_INVALID');
  });

  it('push takes --token, else SCRY_TOKEN', () => {
    expect(resolvePushToken('flag', { SCRY_TOKEN: 'env' })).toBe('flag');
    expect(resolvePushToken(undefined, { SCRY_TOKEN: 'env' })).toBe('env');
    expect(resolvePushToken(undefined, {})).toBeUndefined();
  });
});
