/** Where CLI output goes; `main` gets the process streams, tests get buffers. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout/stderr are terminals (progress bars, colour). */
  readonly stdoutIsTTY: boolean;
  /**
   * Colour allowed by the environment (`NO_COLOR`, https://no-color.org). Unset (as `processIO` leaves it,
   * so that start-up does not load the library): the command asks `terminalPreferences()`.
   */
  readonly color?: boolean;
  readonly stderrIsTTY: boolean;
  readonly stderrStream?: NodeJS.WritableStream | undefined;
  /** Reads all of standard input (for `scry search -`). */
  readStdin(): Promise<string>;
  readonly cwd: string;
}

export function processIO(): CliIO {
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stderrStream: process.stderr,
    cwd: process.cwd(),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
