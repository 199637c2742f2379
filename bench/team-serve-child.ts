/** `scry serve` as a child process for the team benchmarks: started on a free port, stopped with SIGTERM. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface ServeChild {
  readonly url: string;
  /** The last 4 KB the server wrote on stderr (its error log). */
  readonly log: () => string;
  stop(): Promise<void>;
}

/** Starts `node ...cliArgs serve --db URL --port 0 --config FILE --json` and waits for its `{url}` line. */
export async function startServeChild(cliArgs: readonly string[], dbUrl: string, configFile: string, cwd: string): Promise<ServeChild> {
  const child: ChildProcess = spawn(process.execPath, [...cliArgs, 'serve', '--db', dbUrl, '--port', '0', '--config', configFile, '--json'], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4096)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`scry serve exited (${code}): ${stderr}`)));
  });
  return {
    url,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
