import { checkContextRequest, checkSearchRequest, EngineError } from '../../index.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { ensureIndexed } from '../ensure-index.js';
import { parseIntFlag } from '../flags.js';

export interface ContextFlags {
  db?: string;
  root?: string;
  current?: string;
  tokens?: string;
  lang?: string;
  json?: boolean;
}

/** `--current src/a.ts:42` → path and cursor line (the line is optional). */
function parseCurrent(raw: string | undefined): { path: string; line?: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^(.*?):(\d+)$/.exec(raw);
  if (!m) return { path: raw };
  const line = Number(m[2]);
  if (!Number.isSafeInteger(line) || line < 1) throw new EngineError('INVALID_ARGUMENT', { name: 'current', reason: `"${raw}": the line after ':' must be a positive integer` });
  return { path: m[1]!, line };
}

/**
 * `scry context QUERY`: the context pack for a task (engine.context) as YAML text for a prompt, or
 * as JSON. Reads the query from stdin with `-`; builds the index first if there is none.
 */
export async function contextCommand(io: CliIO, query: string | undefined, flags: ContextFlags): Promise<number> {
  const tokens = parseIntFlag(flags.tokens, '--tokens', 100_000);
  const current = parseCurrent(flags.current);
  const text = query === undefined || query === '-' ? await io.readStdin() : query;
  checkContextRequest(text, { tokens });
  if (flags.lang) checkSearchRequest(text, { language: flags.lang });
  const engine = await openEngine(io, { dir: flags.root, db: flags.db });
  try {
    await ensureIndexed(io, engine, flags.json);
    const pack = await engine.context(text, { tokens, current, language: flags.lang });
    if (flags.json) {
      io.out(`${JSON.stringify(pack, null, 2)}\n`);
    } else {
      io.out(pack.text.endsWith('\n') ? pack.text : `${pack.text}\n`);
      const left = pack.omitted.filter((o) => o.section === 'evidence').length;
      io.err(`scry: ${pack.tokens.total}/${pack.budget} tokens · ${pack.candidates} candidates${left > 0 ? ` · ${left} left out` : ''}\n`);
    }
    return 0;
  } finally {
    engine.close();
  }
}
