/** How the CLI may draw on a terminal, as the environment says (config/ is the only reader of process.env). */
export interface TerminalPreferences {
  /**
   * ANSI colour in human output. False when `NO_COLOR` is set to anything but the empty string
   * (https://no-color.org); `--no-color` turns it off per command as well. Default true.
   */
  readonly color: boolean;
}

export function terminalPreferences(env: Readonly<Record<string, string | undefined>> = process.env): TerminalPreferences {
  const noColor = env.NO_COLOR;
  return { color: noColor === undefined || noColor === '' };
}
