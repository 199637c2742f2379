import { checkSearchRequest, EngineError, terminalPreferences, type ContentType } from '../../index.js';
import { formatSearch } from '../format.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { ensureIndexed } from '../ensure-index.js';
import { parseIntFlag, wantsCollections } from '../flags.js';

export interface SearchFlags {
  db?: string;
  root?: string;
  k?: string;
  json?: boolean;
  files?: boolean;
  rerank?: boolean;
  explain?: boolean;
  mode?: string;
  path?: string[];
  lang?: string[];
  type?: string[];
  color?: boolean;
  collection?: string[];
  all?: boolean;
  where?: string[];
}

/** `--where status=open` → `{ status: 'open' }` (the engine validates the field names). */
function parseWhere(items: readonly string[] | undefined): Record<string, string> | undefined {
  if (!items || items.length === 0) return undefined;
  return Object.fromEntries(
    items.map((item) => {
      const eq = item.indexOf('=');
      if (eq < 1) throw new EngineError('INVALID_ARGUMENT', { name: '--where', reason: `"${item}" is not FIELD=VALUE, e.g. status=open` });
      return [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
    }),
  );
}

function parseMode(mode: string | undefined): 'lexical' | 'vector' | 'hybrid' | undefined {
  if (mode === undefined) return undefined;
  if (mode === 'lexical' || mode === 'vector' || mode === 'hybrid') return mode;
  throw new EngineError('INVALID_ARGUMENT', { name: '--mode', reason: 'must be lexical, vector or hybrid' });
}

/** `scry search`: reads the query from the argument or stdin, builds the index first if there is none. */
export async function searchCommand(io: CliIO, query: string | undefined, flags: SearchFlags): Promise<number> {
  const limit = parseIntFlag(flags.k, '-k', 1000);
  const mode = parseMode(flags.mode);
  const text = query === undefined || query === '-' ? await io.readStdin() : query;
  const filters = { path: flags.path, language: flags.lang, type: flags.type as ContentType[] | undefined, where: parseWhere(flags.where) };
  // before any work: an empty query must not index the tree first (issue 24)
  checkSearchRequest(text, { limit, mode, ...filters });
  const color = (flags.color ?? true) && (io.color ?? terminalPreferences().color) && io.stdoutIsTTY;
  const target = { names: flags.collection, all: flags.all, dir: flags.root, db: flags.db };
  if (wantsCollections(target)) {
    // the collections' code (registry, merged ranking) loads only when asked for
    const { searchCollectionsCommand } = await import('../collection-search.js');
    return searchCollectionsCommand(io, text, target, { limit, files: flags.files, rerank: flags.rerank, explain: flags.explain, mode, ...filters }, flags.json, color);
  }
  const engine = await openEngine(io, { dir: flags.root, db: flags.db, orCwd: true });
  try {
    await ensureIndexed(io, engine, flags.json);
    const response = await engine.search(text, {
      limit,
      files: flags.files,
      rerank: flags.rerank,
      explain: flags.explain,
      mode,
      ...filters,
    });
    io.out(flags.json ? `${JSON.stringify(response, null, 2)}\n` : formatSearch(response, color));
    return 0;
  } finally {
    engine.close();
  }
}
