import type { CliIO } from './io.js';

/** What a command leaves for `main`: its exit code, and whether an error is printed as JSON. */
export interface CommandResult {
  code: number;
  json: boolean;
}

/**
 * A command's implementation: the CLI's I/O, then what commander passes to an action (the
 * positional arguments in order, then the flags object), resolving to the exit code.
 */
export type CommandRun = (io: CliIO, ...args: never[]) => number | Promise<number>;

/** Options of {@link lazyAction}. */
export interface LazyActionOptions {
  /** Errors are printed as JSON whatever the flags say (`scry tool` always answers in JSON). */
  readonly json?: boolean;
}

/**
 * A commander `.action()` handler that imports the command's module only when the command runs
 * (issue 19): `scry --help`, and every other command, never load it. `load` names the module and
 * the function, e.g. `() => import('./commands/search-command.js').then((m) => m.searchCommand)`,
 * so adding a command to the CLI is one `.action(run(...))` line beside its options.
 */
export function lazyAction(io: CliIO, result: CommandResult, load: () => Promise<CommandRun>, options: LazyActionOptions = {}): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]): Promise<void> => {
    const passed = args.slice(0, -1); // commander appends the Command object itself
    const flags = passed.at(-1) as { json?: unknown } | undefined;
    result.json = options.json ?? Boolean(flags?.json);
    const run = (await load()) as (io: CliIO, ...rest: unknown[]) => number | Promise<number>;
    result.code = await run(io, ...passed);
  };
}
