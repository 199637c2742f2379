import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { SECRET_RULES } from '../../src/discover/secret-rules.js';
import type { Envelope } from '../../src/tools/envelope.js';
import { runTool } from '../../src/tools/run-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { SMALL_REPO } from '../helpers/fixture-repo.js';
import { BLOCK_MAKERS, plantToken, seededRandom, type Planted } from '../helpers/secret-samples.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

/**
 * The planted-secret review as a property: random small projects with secrets of every rule and
 * every name form, indexed for real, then queried through every read tool with queries aimed at
 * the secrets (their values, their variable names, their files). No planted value may appear in
 * any result, and a path outside the root is refused through every argument that takes one.
 */

const TOKEN_RULES = SECRET_RULES.filter((r) => r.kind === 'token').map((r) => r.id);

/** Credential files by name or path: their content never reaches the index, whatever it is. */
const NAME_FORMS = [
  '.env', '.env.local', '.env~', '.env-backup', '.env_old', 'config/prod.env', '.envrc', '.git-credentials', '.kube/config',
  '.docker/config.json', 'terraform.tfstate', 'infra/terraform.tfstate.backup', 'mykey.ppk', 'release.keystore', '.htpasswd',
  '.aws/credentials', '.config/gcloud/application_default_credentials.json', 'id_rsa', 'server.pem', 'secrets.yaml', '.netrc',
];

/** Files that hold a key block somewhere in them. */
const BLOCK_HOSTS = ['src/fixtures/keys.ts', 'docs/setup.md', 'notes/key.txt', 'src/deploy_keys.py', 'service-account.json'];

interface Project {
  readonly files: Record<string, string>;
  /** Every planted value, with where it was put. */
  readonly planted: ReadonlyArray<Planted & { readonly path: string }>;
  /** Paths of files whose whole content is secret (by name, by key block, registry config). */
  readonly secretPaths: readonly string[];
}

const projectArb = fc.record({
  seed: fc.integer(),
  names: fc.subarray(NAME_FORMS, { minLength: 3, maxLength: 8 }),
  blockHosts: fc.subarray(BLOCK_HOSTS, { minLength: 1 }),
  sourceFiles: fc.integer({ min: 1, max: 4 }),
});

type Spec = typeof projectArb extends fc.Arbitrary<infer T> ? T : never;

function buildProject(spec: Spec): Project {
  const rand = seededRandom(spec.seed);
  const files: Record<string, string> = { ...SMALL_REPO };
  const planted: Array<Planted & { path: string }> = [];
  const secretPaths: string[] = [];
  // every token rule once, spread over a few source files of several languages, between ordinary lines
  const sources = Array.from({ length: spec.sourceFiles }, (_, i) => ['src/settings.ts', 'app/config.py', 'docs/deploy.md', 'config/services.yaml'][i]!);
  const lines = new Map(sources.map((s) => [s, ['// settings for the deployment', 'export const region = "eu-west-1";']]));
  for (const rule of TOKEN_RULES) {
    const host = sources[Math.floor(rand() * sources.length)]!;
    const p = plantToken(rule, rand);
    planted.push({ ...p, path: host });
    lines.get(host)!.push(p.line, `export const after_${rule.replace(/-/g, '_')} = ${Math.floor(rand() * 1000)};`);
  }
  for (const [path, body] of lines) files[path] = `${body.join('\n')}\n`;
  for (const name of spec.names) {
    const p = plantToken('generic-api-key', rand);
    const raw = `DEPLOY_PASSWORD=${p.value}\n`;
    planted.push({ rule: 'name', value: p.value, line: raw.trim(), path: name });
    files[name] = raw;
    secretPaths.push(name);
  }
  for (const [i, host] of spec.blockHosts.entries()) {
    const kinds = Object.keys(BLOCK_MAKERS);
    const block = BLOCK_MAKERS[kinds[(i + Math.floor(rand() * kinds.length)) % kinds.length]!]!(rand);
    files[host] = host.endsWith('.json')
      ? JSON.stringify({ type: 'service_account', private_key: `${block.text}\n` })
      : `// deployment notes\nconst x = 1;\n${block.text}\nmore text after the key\n`;
    planted.push({ rule: 'block', value: block.value, line: block.value, path: host });
    secretPaths.push(host);
  }
  const npm = plantToken('npm-access-token', rand);
  files['docs/.npmrc'] = `registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${npm.value}\n`;
  planted.push({ ...npm, path: 'docs/.npmrc' });
  secretPaths.push('docs/.npmrc');
  return { files, planted, secretPaths };
}

function writeProject(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

/** Calls aimed at the secrets: values, variable names, lines, files; and paths that leave the root. */
function callsFor(project: Project, paths: readonly string[]): Array<[string, Record<string, unknown>]> {
  const calls: Array<[string, Record<string, unknown>]> = [['index_status', {}], ['list_files', { include_hidden: true, limit: 500 }], ['repo_map', {}]];
  for (const p of project.planted) {
    const name = /([A-Za-z_][\w]*)\s*[:=]/.exec(p.line)?.[1] ?? p.rule;
    calls.push(
      ['search_code', { query: p.value }], ['search_docs', { query: p.value }], ['search_code', { query: p.line.slice(0, 200) }],
      ['search_text', { query: p.value }], ['search_text', { query: name }], ['search_text', { query: p.value.slice(4, 14) }],
      ['search_symbols', { name }], ['find_similar', { code_snippet: p.line }],
      ['retrieve_context', { query: `${name} ${p.value}`, current_path: p.path, tokens: 4000 }],
    );
  }
  for (const path of [...paths, ...project.secretPaths]) {
    calls.push(['read_file', { path }], ['related_files', { path }], ['retrieve_context', { query: 'password token key', current_path: path }]);
  }
  return calls;
}

/**
 * The envelope without what echoes the caller's own query back (`terms`, `query`, the warning
 * listing query terms the index does not hold): an agent that searched for a value already holds
 * it. Everything else counts.
 */
function withoutEchoes(env: Envelope): unknown {
  const meta = { ...env.meta, warnings: env.meta.warnings.filter((w) => !w.startsWith('not in the index: ')) };
  if (typeof env.data !== 'object' || env.data === null || Array.isArray(env.data)) return { ...env, meta };
  const { terms: _terms, query: _query, ...data } = env.data as Record<string, unknown>;
  return { ...env, meta, data };
}

const OUTSIDE_CALLS: Array<[string, Record<string, unknown>]> = [
  ['read_file', { path: '../outside/leak.ts' }],
  ['read_file', { path: 'src/../../outside/leak.ts' }],
  ['retrieve_context', { query: 'outside secret', current_path: '../outside/leak.ts' }],
  ['retrieve_context', { query: 'outside secret', current_path: 'src/link-out.ts' }],
  ['related_files', { path: '../outside/leak.ts' }],
];

describe('planted secrets never reach an agent', () => {
  it('property: random projects with secrets of every rule and name form leak 0 values through every read tool', async () => {
    const totals = { projects: 0, files: 0, planted: 0, calls: 0, leaks: 0, redactions: 0, refusedOutside: 0 };
    await fc.assert(
      fc.asyncProperty(projectArb, async (spec) => {
        const t = tempDir();
        try {
          const project = buildProject(spec);
          const root = join(t.dir, 'repo');
          writeProject(root, project.files);
          const outsideValue = plantToken('github-pat', seededRandom(spec.seed ^ 0x5eed)).value;
          writeProject(join(t.dir, 'outside'), { 'leak.ts': `export const t = '${outsideValue}';\n` });
          symlinkSync(join(t.dir, 'outside', 'leak.ts'), join(root, 'src', 'link-out.ts'));
          const engine = await createEngine({ root, env: isolatedEnv(t.dir) });
          try {
            await engine.index();
            const ctx: ToolContext = { engine, writePolicy: 'read-only' };
            const values = [...project.planted.map((p) => p.value), outsideValue];
            const listed = await runTool('list_files', { include_hidden: true, limit: 500 }, ctx);
            const paths = (listed.data as { files: Array<{ path: string }> }).files.map((f) => f.path);
            const leaks: string[] = [];
            const check = (name: string, args: unknown, env: Envelope): void => {
              const text = JSON.stringify(withoutEchoes(env));
              for (const v of values) if (text.includes(v)) leaks.push(`${name} ${JSON.stringify(args).slice(0, 120)} → ${v.slice(0, 12)}…`);
              totals.redactions += text.split('«redacted:').length - 1;
              totals.calls++;
            };
            for (const [name, args] of callsFor(project, paths)) check(name, args, await runTool(name, args, ctx));
            const outside: unknown[] = [];
            for (const [name, args] of OUTSIDE_CALLS) {
              const env = await runTool(name, args, ctx);
              check(name, args, env);
              outside.push([name, args, env.ok, env.error]);
              if (!env.ok && env.error === 'permission_denied') totals.refusedOutside++;
            }
            totals.leaks += leaks.length;
            expect(leaks).toEqual([]);
            expect(outside).toEqual(OUTSIDE_CALLS.map(([name, args]) => [name, args, false, 'permission_denied']));
            // the index serves the redacted files: their other content is still searchable
            const around = await runTool('search_text', { query: 'export const region' }, ctx);
            expect((around.data as { matches: unknown[] }).matches.length).toBeGreaterThan(0);
            for (const secret of project.secretPaths) expect(paths).not.toContain(secret);
            totals.projects++;
            totals.files += Object.keys(project.files).length;
            totals.planted += values.length;
          } finally {
            engine.close();
          }
        } finally {
          t.cleanup();
        }
      }),
      // a failing project is reported at once with its seed: shrinking re-indexes a project per step and would outlast the timeout, hiding the counterexample
      { numRuns: 4, endOnFailure: true },
    );
    expect(totals.leaks).toBe(0);
    expect(totals.redactions).toBeGreaterThan(0);
    console.info(`planted-secret suite: ${JSON.stringify(totals)}`);
  }, 120_000);
});
