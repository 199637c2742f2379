import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const ENTRY = fileURLToPath(new URL('./cli-entry.ts', import.meta.url));
// resolved absolutely: children run in temp directories where `tsx` is not resolvable
const TSX = ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];

/** Node arguments that run the CLI from source: `node ...CLI_ARGS index DIR` (for clients that spawn it themselves). */
export const CLI_ARGS: readonly string[] = [...TSX, ENTRY];

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function runCli(args: string[], options: { cwd: string; stdin?: string }): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    cwd: options.cwd,
    readStdin: async () => options.stdin ?? '',
  };
  const code = await main(['node', 'scry', ...args], io);
  return { code, stdout, stderr };
}

/** Runs the CLI as a real child process (source via tsx), synchronously. */
export function spawnCli(args: string[], options: { cwd: string; env: Record<string, string>; input?: string }): CliRun {
  const r = spawnSync(process.execPath, [...TSX, ENTRY, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Starts the CLI as a child process without waiting (for kill -9 tests). */
export function startCli(args: string[], options: { cwd: string; env: Record<string, string> }) {
  return spawn(process.execPath, [...TSX, ENTRY, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Starts a TypeScript script (via tsx) as a child process, e.g. a reader loop for stress tests. */
export function startScript(script: string, args: string[], options: { cwd: string; env: Record<string, string> }) {
  return spawn(process.execPath, [...TSX, script, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
}
