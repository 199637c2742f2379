import { asBuffer, openConnection } from '../../src/store/driver.js';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { formatDryRun, formatStatus } from '../../src/cli/format.js';
import { plantToken, seededRandom } from '../helpers/secret-samples.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

/** Every text value of every row of every table of the database (FTS shadow tables included). */
function dumpDatabase(path: string): string {
  // FTS5's shadow tables hold integers beyond 2^53
  const db = openConnection(path, { readonly: true, bigInts: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    const out: string[] = [];
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).raw().all() as unknown[][]) {
        for (const v of row) if (typeof v === 'string' || v instanceof Uint8Array) out.push(typeof v === 'string' ? v : asBuffer(v).toString('utf8'));
      }
    }
    return out.join('\n');
  } finally {
    db.close();
  }
}

describe('token literals are redacted in what is stored and served', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;
  const gh = plantToken('github-pat', seededRandom(11));
  const aws = plantToken('aws-access-token', seededRandom(12));
  const source = `import { connect } from './net.js';\n\n${gh.line}\n${aws.line}\n\nexport function openRegistryClient() {\n  return connect(GH);\n}\n`;

  beforeEach(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'src/registry.ts'), source);
    writeFileSync(join(root, 'src/plain.ts'), 'export const plain = 1;\n');
    writeFileSync(join(root, '.env-backup'), 'TOKEN=abc\n');
    writeFileSync(join(root, 'key.txt'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${'b3BlbnNzaC1rZXktdjEAAAAA'.repeat(3)}\n-----END OPENSSH PRIVATE KEY-----\n`);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
  });
  afterEach(() => {
    engine.close();
    t.cleanup();
  });

  it('stores no literal in any table, keeps line numbers and the rest searchable, and status lists the file', async () => {
    const report = await engine.index();
    expect(report.skipped.secret).toBe(2);
    const dump = dumpDatabase(engine.dbPath);
    expect(dump).not.toContain(gh.value);
    expect(dump).not.toContain(aws.value);
    expect(dump).toContain('«redacted:github-pat»');
    const hit = (await engine.search('openRegistryClient')).results[0]!;
    expect(hit.path).toBe('src/registry.ts');
    // the definition is still on line 6: the marker replaced the literal within its line
    expect([hit.startLine <= 6, hit.endLine >= 8]).toEqual([true, true]);
    const slice = await engine.readFile('src/registry.ts');
    expect(slice.text.split('\n')[2]).toBe("export const GH = '«redacted:github-pat»';");
    expect(slice.totalLines).toBe(8);
    const status = engine.status();
    expect(status.redacted).toEqual({ files: 1, list: [{ path: 'src/registry.ts', rules: { 'aws-access-token': 1, 'github-pat': 1 } }] });
    expect(formatStatus(status)).toContain('src/registry.ts: aws-access-token 1, github-pat 1');
  });

  it('the dry run lists the secrets with why, and the files it would redact', async () => {
    const preview = await engine.preview();
    expect(preview.secrets).toEqual([{ path: '.env-backup', why: 'name' }, { path: 'key.txt', why: 'private-key' }]);
    expect(preview.redacted).toEqual([{ path: 'src/registry.ts', rules: { 'github-pat': 1, 'aws-access-token': 1 } }]);
    expect(preview.redactedFiles).toBe(1);
    const text = formatDryRun(preview);
    expect(text).toContain('key.txt (private-key)');
    expect(text).toContain('src/registry.ts');
  });

  it('an index built before redaction loses the literal on the next pass (the stored body is replaced)', async () => {
    await engine.index();
    engine.close();
    // what an older build stored: the raw text under the same content hash, an older feature version
    const raw = openConnection(engine.dbPath);
    raw.prepare("UPDATE content SET body = ? WHERE hash = (SELECT hash FROM files WHERE path = 'src/registry.ts')").run(Buffer.from(source));
    raw.exec('UPDATE files SET feature_version = 3');
    raw.close();
    expect(dumpDatabase(engine.dbPath)).toContain(gh.value);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
    await engine.index();
    expect(dumpDatabase(engine.dbPath)).not.toContain(gh.value);
    expect(engine.status().redacted.files).toBe(1);
  });

  it('a proposed change shows token literals redacted, and stays bound to the real change', async () => {
    await engine.index();
    // replace the token line itself: the removed line would show the literal
    const proposal = await engine.proposeChange({ kind: 'edits', path: 'src/registry.ts', edits: [{ startLine: 3, startCol: 0, endLine: 3, endCol: gh.line.length, replacement: 'export const GH = process.env.GH_TOKEN;' }] });
    expect(proposal.diff).not.toContain(gh.value);
    expect(proposal.diff).not.toContain(aws.value);
    expect(proposal.diff).toContain("-export const GH = '«redacted:github-pat»';");
    expect(proposal.hash).not.toBe(createHash('sha256').update(proposal.diff).digest('hex'));
  });

  it('drops a file from the redaction list once its literal is gone', async () => {
    await engine.index();
    writeFileSync(join(root, 'src/registry.ts'), 'export const GH = process.env.GH_TOKEN;\n');
    await engine.index();
    expect(engine.status().redacted).toEqual({ files: 0, list: [] });
  });
});
