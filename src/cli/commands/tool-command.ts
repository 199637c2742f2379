import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EngineError } from '../../index.js';
import type { ToolErrorCode } from '../../tools/envelope.js';
import { runTool } from '../../tools/run-tool.js';
import { toolsFor } from '../../tools/catalog.js';
import { toolJsonSchema } from '../../tools/tool-schema.js';
import type { WritePolicy } from '../../tools/tool.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';

export interface ToolFlags {
  args?: string;
  db?: string;
  root?: string;
  confirm?: boolean;
  readOnly?: boolean;
}

/** Exit code of a failed envelope, consistent with the engine codes' exit codes. */
const EXIT_BY_TOOL_CODE: Record<ToolErrorCode, number> = {
  invalid_arguments: EXIT.usage,
  not_found: EXIT.notFound,
  permission_denied: EXIT.denied,
  requires_confirmation: EXIT.confirm,
  too_large: EXIT.usage,
  internal_error: EXIT.failure,
};

/** `--args` as given: inline JSON, `-` for stdin, or `@file`. */
async function readArgs(io: CliIO, raw: string | undefined): Promise<unknown> {
  if (raw === undefined) return {};
  let text = raw;
  if (raw === '-') text = await io.readStdin();
  else if (raw.startsWith('@')) {
    try {
      text = readFileSync(resolve(io.cwd, raw.slice(1)), 'utf8');
    } catch (err) {
      throw new EngineError('IO_ERROR', { path: raw.slice(1), reason: (err as Error).message });
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new EngineError('INVALID_ARGUMENT', { name: '--args', reason: `not valid JSON (${(err as Error).message})` });
  }
}

/**
 * `scry tool NAME --args JSON`: runs one agent tool and prints its envelope. The CLI user is the
 * host: `--confirm` approves a write for this call (a token bound to the change is minted and
 * used), otherwise writes are staged.
 */
export async function toolCommand(io: CliIO, name: string, flags: ToolFlags): Promise<number> {
  const args = await readArgs(io, flags.args);
  const engine = await openEngine(io, { dir: flags.root, db: flags.db });
  try {
    const writePolicy: WritePolicy = flags.readOnly ? 'read-only' : flags.confirm ? 'autonomous' : 'stage';
    // runTool checks the name and arguments before `ready`: a bad call builds no index (issue 24)
    const ready = async (): Promise<void> => {
      if (!engine.isIndexed()) await engine.index();
    };
    const envelope = await runTool(name, args, { engine, writePolicy, ready });
    io.out(`${JSON.stringify(envelope, null, 2)}\n`);
    return envelope.ok ? EXIT.ok : EXIT_BY_TOOL_CODE[envelope.error ?? 'internal_error'];
  } finally {
    engine.close();
  }
}

/** `scry tools`: the catalogue, as names and descriptions, or with `--json` names, descriptions and JSON Schemas. */
export function toolsCommand(io: CliIO, flags: { json?: boolean; readOnly?: boolean }): number {
  const tools = toolsFor(flags.readOnly ? 'read-only' : 'stage');
  if (flags.json) {
    const list = tools.map((t) => ({ name: t.name, title: t.title, description: t.description, readOnly: t.readOnly, inputSchema: toolJsonSchema(t) }));
    io.out(`${JSON.stringify({ tools: list }, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const t of tools) io.out(`${t.name}${t.readOnly ? '' : ' (write, needs confirmation)'}\n  ${t.description}\n\n`);
  return EXIT.ok;
}
