import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startEmbedServer, type EmbedServer } from '../helpers/embed-server.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { tempDir } from '../helpers/temp.js';

/** Issue 24: `scry index` said nothing of a failed embedding pass unless --json was given. */
describe('scry index reports the embedding pass in human output', () => {
  let t: ReturnType<typeof tempDir>;
  let server: EmbedServer;
  let root: string;

  beforeAll(async () => {
    t = tempDir('scry-index-embed-');
    server = await startEmbedServer();
    root = join(t.dir, 'repo');
    writeSmallRepo(root);
    writeFileSync(join(root, 'scry.config.json'), JSON.stringify({ embed: { provider: 'ollama', retries: 0, ollama: { baseUrl: server.url, model: 'broken-embed' } } }));
  });
  afterAll(async () => {
    await server.close();
    t.cleanup();
  });

  it('a failure: its code and message, and that search stays lexical (exit 0: the index itself is fine)', async () => {
    server.respond = () => ({ status: 400, body: JSON.stringify({ error: 'model "broken-embed" cannot embed' }) });
    const r = await runCli(['index', root, '--db', join(t.dir, 'failed.db')], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^indexed \d+ files/m);
    expect(r.stdout).toMatch(/^embedding failed \[EMBEDDING_[A-Z]+\]: .+ \(search stays lexical; /m);
  });

  it('a success: what was embedded', async () => {
    server.respond = () => ({ ok: true });
    const r = await runCli(['index', root, '--db', join(t.dir, 'ok.db')], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^embedded \d+ chunk texts with ollama:broken-embed /m);
  });
});
