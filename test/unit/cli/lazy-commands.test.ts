import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { CliIO } from '../../../src/cli/io.js';
import { lazyAction, type CommandResult, type CommandRun } from '../../../src/cli/lazy-action.js';
import { EMBED_PROVIDERS } from '../../../src/index.js';

function bufferIO(): CliIO & { stdout: () => string } {
  let out = '';
  return { out: (s) => void (out += s), err: () => {}, stdoutIsTTY: false, stderrIsTTY: false, cwd: process.cwd(), readStdin: async () => '', stdout: () => out };
}

describe('lazyAction (start-up, issue 19)', () => {
  function program(io: CliIO, result: CommandResult, loads: string[], calls: unknown[][]): Command {
    const load = (name: string) => async (): Promise<CommandRun> => {
      loads.push(name);
      return (async (_io: CliIO, ...args: unknown[]) => {
        calls.push([name, ...args]);
        return name === 'find' ? 3 : 0;
      }) as CommandRun;
    };
    const p = new Command('t').exitOverride();
    p.command('find').argument('<query>').option('--json').option('-k <n>').action(lazyAction(io, result, load('find')));
    p.command('other').action(lazyAction(io, result, load('other')));
    p.command('tool').argument('<name>').action(lazyAction(io, result, load('tool'), { json: true }));
    return p;
  }

  it('imports a command only when it runs, and passes its arguments and flags through', async () => {
    const io = bufferIO();
    const result: CommandResult = { code: -1, json: false };
    const loads: string[] = [];
    const calls: unknown[][] = [];
    await program(io, result, loads, calls).parseAsync(['node', 't', 'find', 'open db', '--json', '-k', '5']);
    expect(loads).toEqual(['find']);
    expect(calls).toEqual([['find', 'open db', { json: true, k: '5' }]]);
    expect(result).toEqual({ code: 3, json: true });
  });

  it('takes json from the flags unless the command always answers in JSON', async () => {
    const io = bufferIO();
    const result: CommandResult = { code: -1, json: true };
    const loads: string[] = [];
    await program(io, result, loads, []).parseAsync(['node', 't', 'other']);
    expect(result).toEqual({ code: 0, json: false });
    await program(io, result, loads, []).parseAsync(['node', 't', 'tool', 'x']);
    expect(result.json).toBe(true);
    expect(loads).toEqual(['other', 'tool']);
  });
});

describe('the lazy command table', () => {
  it('--help lists every command without running one', async () => {
    const io = bufferIO();
    expect(await main(['node', 'scry', '--help'], io)).toBe(0);
    for (const c of ['index', 'search', 'status', 'symbols', 'refs', 'outline', 'related', 'map', 'eval', 'tool', 'tools', 'context', 'watch', 'mcp', 'serve', 'push', 'models', 'embed', 'similar']) {
      expect(io.stdout()).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    }
  });

  it('embed --help names every provider the library has (the register file keeps its own copy of the list)', async () => {
    const io = bufferIO();
    expect(await main(['node', 'scry', 'embed', '--help'], io)).toBe(0);
    expect(io.stdout().replace(/\s+/g, ' ')).toContain(`embedding provider for this run: ${EMBED_PROVIDERS.join(', ')}`);
  });

  it('a lazily loaded command still reports its errors with their codes', async () => {
    const io = bufferIO();
    let err = '';
    const code = await main(['node', 'scry', 'search', 'x', '-k', '0', '--json'], { ...io, err: (s) => void (err += s) });
    expect(code).toBe(2);
    expect(JSON.parse(err)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
  });
});
