import { EngineError, type RepoMap } from '../../index.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { ensureIndexed } from '../ensure-index.js';

export interface MapFlags {
  db?: string;
  root?: string;
  tokens?: string;
  focus?: string[];
  query?: string;
  json?: boolean;
}

/** `--tokens`: an integer from 64 to 100,000, or a usage error naming the flag. */
function parseTokens(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 64 || n > 100_000) throw new EngineError('INVALID_ARGUMENT', { name: '--tokens', reason: `"${raw}" is not an integer from 64 to 100000` });
  return n;
}

function summary(map: RepoMap): string {
  return `scry: ${map.includedFiles} of ${map.totalFiles} code files, ${map.tokens}/${map.budget} tokens, ${map.tookMs} ms\n`;
}

/** `scry map`: the repo map of the index of DIR; builds the index first if there is none. */
export async function mapCommand(io: CliIO, dir: string | undefined, flags: MapFlags): Promise<number> {
  const tokens = parseTokens(flags.tokens);
  const engine = await openEngine(io, { dir: dir ?? flags.root, db: flags.db });
  try {
    await ensureIndexed(io, engine, flags.json);
    const map = await engine.repoMap({ tokens, focus: flags.focus, query: flags.query });
    if (flags.json) io.out(`${JSON.stringify(map, null, 2)}\n`);
    else {
      io.out(map.text);
      io.err(summary(map));
    }
    return 0;
  } finally {
    engine.close();
  }
}
