/**
 * Language servers outlive nothing: a scry process killed with SIGKILL (no exit handler runs) leaves
 * no server behind (their stdin ends; they also watch scry's pid, passed in `initialize`); and
 * Node-based servers run with their heap capped at lsp.maxMemoryMb.
 * Real servers (typescript-language-server with its tsserver, pyright) in a real child process
 * running the built library (dist/). Outcomes are polled for, never timed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const DIST = pathToFileURL(join(import.meta.dirname, '../../dist/index.js')).href;

const CHILD = `
import { createEngine } from ${JSON.stringify(DIST)};
const [root, cache] = process.argv.slice(2);
const engine = await createEngine({ root, env: { SCRY_CACHE_DIR: cache }, config: { lsp: { enabled: true, timeoutMs: 60000, maxMemoryMb: 1536 } } });
await engine.index();
const ts = await engine.references('src/a.ts#Alpha@1', { limit: 10 });
const py = await engine.references('pkg/jobs.py#Job@1', { limit: 10 });
const pids = engine.status().languageServers.servers.filter((s) => s.pid !== undefined).map((s) => [s.name, s.pid]);
process.stdout.write(JSON.stringify({ resolutions: [ts.resolution, py.resolution], pids: Object.fromEntries(pids) }) + '\\n');
setInterval(() => undefined, 1000);
`;

/** Every process whose process group is one of `groups` (a server and what it spawned: tsserver). */
function groupMembers(groups: readonly number[]): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([pid, pgid]) => pid !== undefined && pgid !== undefined && groups.includes(pgid))
    .map(([pid]) => pid!);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('language servers after scry is killed', () => {
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => {
    t = tempDir('scry-lsp-orphans-');
    writeTree(join(t.dir, 'repo'), {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['src'] }),
      'src/a.ts': 'export class Alpha {}\n',
      'src/b.ts': "import { Alpha } from './a';\nexport const a = new Alpha();\n",
      'pkg/__init__.py': '',
      'pkg/jobs.py': 'class Job:\n    pass\n\n\nJOB = Job()\n',
    });
    writeTree(t.dir, { 'child.mjs': CHILD });
  });
  afterAll(() => t.cleanup());

  it('servers run Node-capped at lsp.maxMemoryMb and exit once a SIGKILLed scry is gone', async () => {
    const child = spawn(process.execPath, [join(t.dir, 'child.mjs'), join(t.dir, 'repo'), isolatedEnv(t.dir).SCRY_CACHE_DIR!], { stdio: ['ignore', 'pipe', 'pipe'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
      child.on('exit', (code) => reject(new Error(`child exited ${code}: ${err}`)));
    });
    const report = JSON.parse(line) as { resolutions: string[]; pids: Record<string, number> };
    expect(report.resolutions).toEqual(['lsp', 'lsp']);
    const servers = [report.pids.typescript!, report.pids.python!];
    for (const pid of servers) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv[0]).toBe(process.execPath);
      expect(argv[1]).toBe('--max-old-space-size=1536');
    }
    const members = groupMembers(servers);
    // typescript-language-server, its tsserver(s), pyright (and its workers, if any are processes)
    expect(members.length).toBeGreaterThanOrEqual(3);
    child.kill('SIGKILL');
    while (members.some(alive)) await new Promise((r) => setTimeout(r, 200));
    expect(members.filter(alive)).toEqual([]);
  }, 120_000);
});
