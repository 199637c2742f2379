import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/ lives directly under it). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where every bench script writes its JSON (git-ignored). */
export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

export interface Environment {
  readonly node: string;
  readonly platform: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly totalMemBytes: number;
  /** 1-minute load average when the run started: the machine is shared, so read numbers against it. */
  readonly loadAvg1m: number;
  readonly commit: string | null;
  /** True when src/ differs from HEAD: then only `srcHash` identifies the code measured. */
  readonly dirty: boolean | null;
  /** sha256 (12 hex) of every file under src/, by sorted path: the exact code measured. */
  readonly srcHash: string;
  readonly startedAt: string;
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function srcHash(): string {
  const src = join(REPO_ROOT, 'src');
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(f.slice(src.length)).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex').slice(0, 12);
}

export function environment(): Environment {
  const status = git(['status', '--porcelain', '--', 'src']);
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    totalMemBytes: totalmem(),
    loadAvg1m: loadavg()[0] ?? 0,
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty: status === null ? null : status !== '',
    srcHash: srcHash(),
    startedAt: new Date().toISOString(),
  };
}

/** Writes `bench/results/<name>.json` and returns its path. */
export function writeResult(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** Reads a previous result, or undefined when there is none (or it is unreadable). */
export function readResult<T>(name: string): T | undefined {
  try {
    return JSON.parse(readFileSync(join(RESULTS_DIR, `${name}.json`), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Named flags (`--full-only`) and values (`--db PATH`) from argv; enough for these scripts. */
export function parseArgs(argv: readonly string[]): { flags: Set<string>; values: Map<string, string> } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq !== -1) values.set(a.slice(2, eq), a.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--') && VALUE_FLAGS.has(a.slice(2))) values.set(a.slice(2), argv[++i]!);
    else flags.add(a.slice(2));
  }
  return { flags, values };
}

/** Flags that take a value. */
const VALUE_FLAGS = new Set(['db', 'rounds', 'cli-runs', 'file', 'top', 'only', 'edits', 'idle-seconds', 'repo', 'storm-files', 'seed', 'runs', 'node', 'base', 'base-db', 'root']);
