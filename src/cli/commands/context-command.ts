import { readFile } from 'node:fs/promises';
import { checkContextRequest, checkSearchRequest, EngineError, type ContextOptions } from '../../index.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { ensureIndexed } from '../ensure-index.js';
import { parseIntFlag } from '../flags.js';
import { parseCurrent, parseSelection, parseTask, stdinInput } from '../context-flags.js';

export interface ContextFlags {
  db?: string;
  root?: string;
  task?: string;
  current?: string;
  selection?: string;
  log?: string;
  diff?: string;
  draft?: string;
  open?: string[];
  tokens?: string;
  lang?: string;
  json?: boolean;
}

/** The text of a `--log`/`--diff`/`--draft` file, stdin for `-`; a missing file is INVALID_ARGUMENT. */
async function inputText(io: CliIO, name: string, raw: string | undefined, stdin: () => Promise<string>): Promise<string | undefined> {
  if (raw === undefined) return undefined;
  if (raw === '-') return stdin();
  try {
    return await readFile(raw, 'utf8');
  } catch (err) {
    throw new EngineError('INVALID_ARGUMENT', { name, reason: `cannot read ${raw}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` });
  }
}

/** Parses every flag (and reads the inputs) before any index is opened. */
async function contextRequest(io: CliIO, query: string | undefined, flags: ContextFlags): Promise<{ text: string; options: ContextOptions }> {
  const tokens = parseIntFlag(flags.tokens, '--tokens', 100_000);
  const task = parseTask(flags.task);
  const current = parseCurrent(flags.current);
  const selection = parseSelection(flags.selection);
  const located = flags.log !== undefined || flags.diff !== undefined || current !== undefined;
  // a query is read from stdin when it is `-`, or when it is missing and nothing else says where to look
  const queryArg = query ?? (located && (task ?? 'qa') !== 'qa' ? '' : '-');
  stdinInput({ query: queryArg, '--log': flags.log, '--diff': flags.diff, '--draft': flags.draft });
  const stdin = (): Promise<string> => io.readStdin();
  const text = queryArg === '-' ? await stdin() : queryArg;
  const [log, diff, draft] = [await inputText(io, 'log', flags.log, stdin), await inputText(io, 'diff', flags.diff, stdin), await inputText(io, 'draft', flags.draft, stdin)];
  const options: ContextOptions = { tokens, task, current, selection, log, diff, draft, openFiles: flags.open, language: flags.lang };
  checkContextRequest(text, options);
  if (flags.lang) checkSearchRequest(text.trim() === '' ? 'x' : text, { language: flags.lang });
  return { text, options };
}

/**
 * `scry context [QUERY]`: the context pack for a task (engine.context) as YAML text for a prompt,
 * or as JSON. Reads the query from stdin with `-` (or when none is given and nothing else says
 * where to look); `--log -` reads terminal output from stdin. Builds the index first if there is none.
 */
export async function contextCommand(io: CliIO, query: string | undefined, flags: ContextFlags): Promise<number> {
  const { text, options } = await contextRequest(io, query, flags);
  const engine = await openEngine(io, { dir: flags.root, db: flags.db });
  try {
    await ensureIndexed(io, engine, flags.json);
    const pack = await engine.context(text, options);
    if (flags.json) {
      io.out(`${JSON.stringify(pack, null, 2)}\n`);
    } else {
      io.out(pack.text.endsWith('\n') ? pack.text : `${pack.text}\n`);
      const left = pack.omitted.filter((o) => o.section === 'evidence').length;
      const task = pack.task !== 'qa' ? ` · task ${pack.task}` : '';
      const failures = options.log !== undefined ? ` · ${pack.failures.length} failure item${pack.failures.length === 1 ? '' : 's'} in the repository` : '';
      io.err(`scry: ${pack.tokens.total}/${pack.budget} tokens · ${pack.candidates} candidates${task}${failures}${left > 0 ? ` · ${left} left out` : ''}\n`);
    }
    return 0;
  } finally {
    engine.close();
  }
}
