import { symlinkSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readCandidate } from '../../../src/discover/read.js';
import { checkNewPath, checkPaths } from '../../../src/discover/walk.js';
import { plantToken, seededRandom } from '../../helpers/secret-samples.js';
import { makeTempDir, removeDir, runWalk, writeTree } from './walk-helpers.js';

let root: string;
afterEach(() => removeDir(root));

const walkOptions = (r: string) => ({ root: r, maxFileBytes: 1_000_000, ignore: [], denylist: { add: [], remove: [] } });

/** Credential files that the planted-secret review found indexed, and their common variants. */
const SECRET_FILES = [
  '.git-credentials', 'home/.git-credentials', '.kube/config', 'ops/.kube/config', '.docker/config.json', 'ci/.docker/config.json',
  'terraform.tfstate', 'infra/terraform.tfstate.backup', 'infra/prod.tfstate', '.envrc', '.env~', '.env-backup', '.env_old', '.env.local',
  'config/prod.env', 'deploy/.env.production', 'mykey.ppk', 'keys/deploy.ppk', 'release.keystore', 'android/app/debug.keystore', '.htpasswd',
  'web/.htpasswd', '.aws/credentials', 'home/user/.aws/credentials', '.config/gcloud/application_default_credentials.json',
  '.config/gcloud/legacy_credentials/me@example.com/adc.json', '.config/gcloud/credentials.db', '.azure/accessTokens.json',
  '.config/gh/hosts.yml', '.dockercfg',
];

/** Names next to them that are ordinary files and must stay indexable. */
const ORDINARY_FILES = [
  '.env.example', '.env.sample', '.env.template', 'src/env.ts', 'src/environment.ts', 'kube/config.yaml', 'src/kube/config.ts',
  '.docker/daemon.json', 'docker/config.json', 'docs/terraform.md', 'main.tf', 'src/keystore.ts', 'src/credentials/store.ts',
  '.config/gcloud/configurations/config_default', 'envrc.md', 'src/.environment/readme.md',
];

describe('secrets by name and path, one by one', () => {
  for (const path of SECRET_FILES) {
    it(`${path} is a secret: skipped by the walk, refused by checkPaths and checkNewPath`, () => {
      root = makeTempDir();
      writeTree(root, { [path]: 'anything\n', 'src/app.ts': 'export {}\n' });
      const walked = runWalk(root);
      expect(walked.paths).toEqual(['src/app.ts']);
      expect(walked.reasons.get(path)).toBe('secret');
      expect(checkPaths(walkOptions(root), [path])[0]).toMatchObject({ kind: 'skip', reason: 'secret' });
      expect(checkNewPath(walkOptions(root), path)).toBe('secret');
    });
  }

  it('keeps the ordinary files next to them', () => {
    root = makeTempDir();
    writeTree(root, Object.fromEntries(ORDINARY_FILES.map((p) => [p, 'x = 1\n'])));
    expect(runWalk(root).paths).toEqual([...ORDINARY_FILES].sort());
  });

  it('config can remove a path rule by its exact text', () => {
    root = makeTempDir();
    writeTree(root, { '.kube/config': 'apiVersion: v1\n' });
    expect(runWalk(root, { denylist: { remove: ['**/.kube/config'], add: [] } }).paths).toEqual(['.kube/config']);
  });

  it('a link to a credential file is a secret by its target path', () => {
    root = makeTempDir();
    writeTree(root, { '.kube/config': 'token: x\n' });
    symlinkSync(`${root}/.kube/config`, `${root}/kubeconfig.yaml`);
    expect(runWalk(root).reasons.get('kubeconfig.yaml')).toBe('secret');
  });
});

describe('secrets by content (readCandidate)', () => {
  const read = (path: string) => {
    const c = runWalk(root).files.find((f) => f.path === path)!;
    return readCandidate(root, c, 1_000_000);
  };

  it('a nested .npmrc with an npm token literal (no _authToken key) is a secret', () => {
    root = makeTempDir();
    const token = plantToken('npm-access-token', seededRandom(3)).value;
    writeTree(root, { 'docs/.npmrc': `//registry.npmjs.org/:token=${token}\n` });
    expect(read('docs/.npmrc')).toMatchObject({ ok: false, reason: 'secret', rule: 'registry-config-token' });
  });

  it('a service-account JSON with a private key is a secret; one without is indexed', () => {
    root = makeTempDir();
    writeTree(root, {
      'service-account-prod.json': '{"type": "service_account", "private_key_id": "1", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----\\n"}',
      'service-account-schema.json': '{"type": "object", "properties": {"client_email": {"type": "string"}}}',
    });
    expect(read('service-account-prod.json')).toMatchObject({ ok: false, reason: 'secret' });
    expect(read('service-account-schema.json')).toMatchObject({ ok: true, redactions: {} });
  });

  it('a PuTTY key block inside a .ts file makes it a secret', () => {
    root = makeTempDir();
    writeTree(root, { 'src/keys.ts': 'export const k = `PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPublic-Lines: 1\nAAAAB3\nPrivate-Lines: 1\nAAAAgQ\n`;\n' });
    expect(read('src/keys.ts')).toMatchObject({ ok: false, reason: 'secret', rule: 'putty-private-key' });
  });

  it('a source file with token literals is read with them redacted in place, hash of the bytes on disk', () => {
    root = makeTempDir();
    const aws = plantToken('aws-access-token', seededRandom(1));
    const gh = plantToken('github-pat', seededRandom(2));
    writeTree(root, { 'src/config.ts': `// settings\n${aws.line}\n${gh.line}\nexport const port = 8080;\n` });
    const r = read('src/config.ts');
    if (!r.ok) throw new Error(r.reason);
    expect(r.text).toBe(`// settings\nconst accessKeyId = "«redacted:aws-access-token»";\nexport const GH = '«redacted:github-pat»';\nexport const port = 8080;\n`);
    expect(r.redactions).toEqual({ 'aws-access-token': 1, 'github-pat': 1 });
    expect(r.size).toBe(Buffer.byteLength(`// settings\n${aws.line}\n${gh.line}\nexport const port = 8080;\n`));
  });
});
