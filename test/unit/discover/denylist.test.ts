import { afterEach, describe, expect, it } from 'vitest';
import type { FileCandidate } from '../../../src/core/file.js';
import { BUILTIN_DENYLIST, BUILTIN_SECRETS, adjustList } from '../../../src/discover/denylist.js';
import { looksSecret } from '../../../src/discover/secret-content.js';
import { readCandidate } from '../../../src/discover/read.js';
import { makeTempDir, removeDir, runWalk, writeTree } from './walk-helpers.js';

let root: string;
afterEach(() => removeDir(root));

const PRIVATE_KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\n-----END RSA PRIVATE KEY-----\n';

function readAll(files: readonly FileCandidate[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of files) {
    const r = readCandidate(root, f, 1_000_000);
    out.set(f.path, r.ok ? 'ok' : r.reason);
  }
  return out;
}

describe('built-in denylist', () => {
  it('skips build output, dependencies, bundles, lock files, media and databases as `denylist`', () => {
    root = makeTempDir();
    writeTree(root, {
      'node_modules/lib/index.js': 'x', 'packages/app/node_modules/dep/a.js': 'x', 'dist/a.js': 'x', 'web/build/b.js': 'x',
      '__pycache__/m.pyc': 'x', 'app.min.js': 'x', 'style.min.css': 'x', 'app.js.map': 'x',
      'package-lock.json': '{}', 'yarn.lock': '', 'pnpm-lock.yaml': '', 'Cargo.lock': '', 'go.sum': '',
      'logo.png': 'x', 'photo.JPG': 'x', 'font.woff2': 'x', 'data.sqlite': 'x', 'cache.db': 'x', 'a.db-wal': 'x',
      'index.db.vec': 'x', 'index.db.vec.ok': '{}',
      'src/app.ts': 'export {}\n', 'src/minify.ts': 'x',
    });
    const result = runWalk(root);
    expect(result.paths).toEqual(['src/app.ts', 'src/minify.ts']);
    const denied = ['node_modules/', 'packages/app/node_modules/', 'dist/', 'web/build/', '__pycache__/', 'app.min.js',
      'style.min.css', 'app.js.map', 'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'go.sum',
      'logo.png', 'font.woff2', 'data.sqlite', 'cache.db', 'a.db-wal', 'index.db.vec', 'index.db.vec.ok'];
    for (const p of denied) expect([p, result.reasons.get(p)]).toEqual([p, 'denylist']);
    // matching is case-insensitive (the `ignore` library's default), so upper-case extensions are caught too
    expect(result.reasons.get('photo.JPG')).toBe('denylist');
  });

  it('applies the denylist even when .gitignore tries to re-include', () => {
    root = makeTempDir();
    writeTree(root, { '.gitignore': '!dist/\n!*.min.js\n', 'dist/a.js': '', 'b.min.js': '' });
    const result = runWalk(root);
    expect(result.paths).toEqual(['.gitignore']);
    expect(result.reasons.get('dist/')).toBe('denylist');
  });

  it('config can remove a built-in entry by its exact text and add patterns', () => {
    root = makeTempDir();
    writeTree(root, { 'dist/a.js': 'x', 'build/b.js': 'x', 'gen/c.ts': 'x', 'd.proto.ts': 'x', 'e.ts': 'x' });
    const result = runWalk(root, { denylist: { remove: ['dist/'], add: ['gen/', '*.proto.ts'] } });
    expect(result.paths).toEqual(['dist/a.js', 'e.ts']);
    expect(result.reasons.get('build/')).toBe('denylist');
    expect(result.reasons.get('gen/')).toBe('denylist');
    expect(result.reasons.get('d.proto.ts')).toBe('denylist');
  });

  it('adjustList removes by exact text only, then appends', () => {
    expect(adjustList(['a/', '*.b', 'c'], ['*.b', 'a'], ['d'])).toEqual(['a/', 'c', 'd']);
    expect(BUILTIN_DENYLIST).toContain('node_modules/');
    expect(new Set(BUILTIN_DENYLIST).size).toBe(BUILTIN_DENYLIST.length);
    expect(new Set(BUILTIN_SECRETS).size).toBe(BUILTIN_SECRETS.length);
  });
});

describe('secrets by name', () => {
  it('skips env files, keys and credentials as `secret`, keeps templates', () => {
    root = makeTempDir();
    writeTree(root, {
      '.env': 'A=1', '.env.local': 'A=1', 'config/.env.production': 'A=1', '.env.example': 'A=\n', '.env.sample': 'A=\n',
      'id_rsa': 'x', 'id_rsa.pub': 'ssh-rsa AAAA', 'id_ed25519': 'x', 'server.pem': 'x', 'tls/server.key': 'x',
      'cert.p12': 'x', 'credentials.json': '{}', 'deploy/credentials': 'x', '.netrc': 'x', 'secrets.yaml': 'x',
      'src/env.ts': 'export const env = {};\n', 'src/credential-store.ts': 'x', 'keys.ts': 'x',
    });
    const result = runWalk(root);
    expect(result.paths).toEqual(['.env.example', '.env.sample', 'keys.ts', 'src/credential-store.ts', 'src/env.ts']);
    for (const p of ['.env', '.env.local', 'config/.env.production', 'id_rsa', 'id_rsa.pub', 'id_ed25519', 'server.pem',
      'tls/server.key', 'cert.p12', 'credentials.json', 'deploy/credentials', '.netrc', 'secrets.yaml']) {
      expect([p, result.reasons.get(p)]).toEqual([p, 'secret']);
    }
    const example = result.files.find((f) => f.path === '.env.example');
    expect(example?.language).toBe('dotenv');
  });

  it('removing a secret pattern through config makes those files indexable', () => {
    root = makeTempDir();
    writeTree(root, { 'server.pem': 'not really a key\n', '.env': 'A=1' });
    expect(runWalk(root, { denylist: { remove: ['*.pem'], add: [] } }).paths).toEqual(['server.pem']);
  });

  it('a secret listed in .scryignore negation is still skipped', () => {
    root = makeTempDir();
    writeTree(root, { '.scryignore': '!.env\n', '.env': 'A=1' });
    expect(runWalk(root).reasons.get('.env')).toBe('secret');
  });
});

describe('secrets by content (readCandidate)', () => {
  it('skips a .npmrc with an auth token, indexes one without', () => {
    root = makeTempDir();
    writeTree(root, {
      'a/.npmrc': '//registry.npmjs.org/:_authToken=npm_abcdef\n',
      'b/.npmrc': 'registry=https://registry.npmjs.org/\nsave-exact=true\n',
      'c/.pypirc': '[pypi]\nusername = __token__\npassword = pypi-xyz\n',
      'd/.yarnrc.yml': 'npmAuthToken: abc\n',
    });
    const walked = runWalk(root);
    expect(walked.paths).toEqual(['a/.npmrc', 'b/.npmrc', 'c/.pypirc', 'd/.yarnrc.yml']);
    expect(Object.fromEntries(readAll(walked.files))).toEqual({
      'a/.npmrc': 'secret', 'b/.npmrc': 'ok', 'c/.pypirc': 'secret', 'd/.yarnrc.yml': 'secret',
    });
  });

  it('skips any file containing a private key block, whatever its name', () => {
    root = makeTempDir();
    writeTree(root, {
      'src/fixtures.ts': `export const key = \`\n${PRIVATE_KEY}\`;\n`,
      'docs/setup.md': '# Setup\n\n```\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n```\n',
      'ec.txt': '-----BEGIN EC PRIVATE KEY-----\nx\n',
      'pub.txt': '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n',
      'cert.txt': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    });
    expect(Object.fromEntries(readAll(runWalk(root).files))).toEqual({
      'src/fixtures.ts': 'secret', 'docs/setup.md': 'secret', 'ec.txt': 'secret', 'pub.txt': 'ok', 'cert.txt': 'ok',
    });
  });

  it('looksSecret only applies the token rule to registry config names', () => {
    expect(looksSecret('notes.md', 'set _authToken= in your .npmrc')).toBe(false);
    expect(looksSecret('x/.npmrc', '_auth = abc')).toBe(true);
    expect(looksSecret('x/.npmrc', '# password: see vault')).toBe(false);
    expect(looksSecret('x/a.pem.txt', PRIVATE_KEY)).toBe(true);
  });
});
