/**
 * Freshness across real processes: `scry watch` children, reader processes and `scry index`
 * sharing one SQLite index. kill -9 of the writer mid-pass, then a new writer; one writer, several
 * readers and a CLI index at once, with no error surfaced anywhere and the right final state.
 */
import { openConnection } from '../../src/store/driver.js';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { spawnCli, startCli, startScript } from '../helpers/cli.js';
import { backdate } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';
import { sleep, waitFor } from '../helpers/wait.js';

const READER = fileURLToPath(new URL('../helpers/reader-loop.ts', import.meta.url));

function writeGeneration(root: string, generation: string, files: number): string[] {
  const paths: string[] = [];
  for (let i = 0; i < files; i++) {
    const rel = `pkg${i % 40}/module_${i}.ts`;
    const body = Array.from({ length: 30 }, (_, l) => `export const value_${i}_${l} = compute${generation}(${l});`).join('\n');
    mkdirSync(join(root, `pkg${i % 40}`), { recursive: true });
    writeFileSync(join(root, rel), `// generation ${generation} marker${generation}\n${body}\n`);
    paths.push(rel);
  }
  return paths;
}

const exitOf = (child: ReturnType<typeof startCli>): Promise<number | null> => (child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code))));

function collect(child: ReturnType<typeof startCli>): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return { out: () => out, err: () => err };
}

describe('freshness across processes', () => {
  let t: ReturnType<typeof tempDir>;
  const children: Array<ReturnType<typeof startCli>> = [];
  beforeEach(() => {
    t = tempDir('scry-fresh-proc-');
  });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
    t.cleanup();
  });

  it('survives kill -9 of the watching writer mid-pass: a new writer recovers the lock, the index checks ok, the pass completes', async () => {
    const root = join(t.dir, 'repo');
    const db = join(t.dir, 'index.db');
    const env = isolatedEnv(t.dir);
    const FILES = 1500;
    backdate(root, writeGeneration(root, 'Alpha', FILES));
    const first = await createEngine({ root, db, env });
    await first.index();
    first.close();

    backdate(root, writeGeneration(root, 'Beta', FILES), 1200);
    const started = Date.now();
    const child = startCli(['watch', root, '--db', db], { cwd: t.dir, env });
    children.push(child);
    const reader = openConnection(db, { readonly: true });
    let done = 0;
    for (;;) {
      done = (reader.prepare('SELECT count(*) AS n FROM files WHERE indexed_at_ms >= ?').get(started) as { n: number }).n;
      if (done > 0 || child.exitCode !== null) break;
      await sleep(5);
    }
    child.kill('SIGKILL');
    await exitOf(child);
    reader.close();
    expect(done, 'killed after the first batch and before the end').toBeGreaterThan(0);
    expect(done).toBeLessThan(FILES);
    expect(existsSync(`${db}.lock`)).toBe(true);

    const after = await createEngine({ root, db, env });
    const watch = await after.watch({ files: false });
    try {
      expect(watch.role).toBe('writer'); // the dead writer's lock was recovered at once
      await watch.idle();
      const check = openConnection(db, { readonly: true });
      expect(check.pragma('integrity_check')).toBe('ok');
      check.close();
      let beta = 0;
      for (let d = 0; d < 40; d++) beta += (await after.search('markerBeta', { limit: 1000, files: true, path: `pkg${d}/` })).results.length;
      expect(beta).toBe(FILES);
      expect((await after.search('markerAlpha', { limit: 10 })).results).toHaveLength(0);
    } finally {
      await watch.close();
      after.close();
    }
  }, 120_000);

  it('serves one writer, several reader processes and a CLI index at once with no error, ending in the right state', async () => {
    const root = join(t.dir, 'repo');
    const db = join(t.dir, 'index.db');
    const env = isolatedEnv(t.dir);
    backdate(root, writeGeneration(root, 'Gamma', 300));
    const stop = join(t.dir, 'stop');

    const writer = startCli(['watch', root, '--db', db, '--debounce', '50', '--json'], { cwd: t.dir, env });
    children.push(writer);
    const writerOut = collect(writer);
    await waitFor('the writer\'s first pass', () => writerOut.out().includes('"pass-end"'), 60_000);

    const readers = Array.from({ length: 3 }, () => startScript(READER, [root, db, stop, 'markerGamma computeGamma'], { cwd: t.dir, env }));
    children.push(...readers);
    const readerOut = readers.map(collect);

    // edits while the readers read, and a CLI index handed to the writer meanwhile
    for (let i = 0; i < 40; i++) writeFileSync(join(root, `pkg${i % 40}`, `edit_${i}.ts`), `export const editedOcelot_${i} = ${i};\n`);
    const cli = spawnCli(['index', root, '--db', db, '--json'], { cwd: t.dir, env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toMatch(/writes this index; the pass runs there/);
    expect(JSON.parse(cli.stdout)).toMatchObject({ filesSeen: 340 });
    const status = spawnCli(['status', root, '--db', db], { cwd: t.dir, env });
    expect(status.stdout).toMatch(/^freshness: .*watched by pid \d+ \(directories, \d+ watches\)/m);
    for (let i = 40; i < 60; i++) writeFileSync(join(root, `pkg${i % 40}`, `edit_${i}.ts`), `export const editedOcelot_${i} = ${i};\n`);

    const engine = await createEngine({ root, db, env });
    try {
      await waitFor('every edit indexed by the writer', async () => (await engine.search('editedOcelot', { limit: 100, files: true }).catch(() => ({ results: [] }))).results.length === 60, 30_000);
      writeFileSync(stop, '');
      const results = await Promise.all(readers.map(async (r, i) => ((await exitOf(r)) === 0 ? (JSON.parse(readerOut[i]!.out()) as { queries: number; errors: string[] }) : { queries: 0, errors: [`exit: ${readerOut[i]!.err()}`] })));
      for (const r of results) {
        expect(r.errors).toEqual([]);
        expect(r.queries).toBeGreaterThan(0);
      }
      expect(engine.freshness()).toMatchObject({ role: 'none', writer: { role: 'watch' } });
      const check = openConnection(db, { readonly: true });
      expect(check.pragma('integrity_check')).toBe('ok');
      check.close();
    } finally {
      engine.close();
    }
    writer.kill('SIGTERM');
    expect(await exitOf(writer)).toBe(0);
    expect(writerOut.err()).not.toMatch(/SQLITE_BUSY|DB_LOCKED|INDEX_LOCKED/);
    expect(existsSync(`${db}.lock`)).toBe(false); // a clean exit gives the lock back
  }, 180_000);
});
