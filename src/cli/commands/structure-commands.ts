import { checkReferenceRequest, checkSymbolRequest, EngineError, type Engine } from '../../index.js';
import { formatDiagnostics, formatOutline, formatReferences, formatRelated, formatSymbols } from '../format-structure.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { parseIntFlag } from '../flags.js';

export interface StructureFlags {
  db?: string;
  root?: string;
  json?: boolean;
  kind?: string[];
  k?: string;
}

/** Opens the project's index, which must exist (these commands do not build it). */
async function withIndex<T>(io: CliIO, flags: StructureFlags, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await openEngine(io, { dir: flags.root, db: flags.db });
  try {
    if (!engine.isIndexed()) throw new EngineError('INDEX_NOT_FOUND', { db: engine.dbPath }, { hint: `run \`scry index ${engine.root}\` first` });
    return await fn(engine);
  } finally {
    engine.close();
  }
}

export async function symbolsCommand(io: CliIO, name: string, flags: StructureFlags): Promise<number> {
  const limit = parseIntFlag(flags.k, '-k', 1000);
  checkSymbolRequest(name, { kind: flags.kind, limit });
  const found = await withIndex(io, flags, (e) => e.findSymbols(name, { kind: flags.kind, limit }));
  const { symbols: hits, ...how } = found;
  io.out(flags.json ? `${JSON.stringify({ query: name, results: hits, ...how }, null, 2)}\n` : formatSymbols(name, hits, how));
  return 0;
}

export async function refsCommand(io: CliIO, name: string, flags: StructureFlags): Promise<number> {
  const limit = parseIntFlag(flags.k, '-k', 5000);
  checkReferenceRequest(name, { limit });
  const result = await withIndex(io, flags, (e) => e.references(name, { limit }));
  io.out(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatReferences(result));
  return 0;
}

/** A FILE argument: outline and related need a path (before the index is opened). */
function checkPathArgument(path: string): void {
  if (path.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'a path relative to the root' });
}

export async function outlineCommand(io: CliIO, path: string, flags: StructureFlags): Promise<number> {
  checkPathArgument(path);
  const outline = await withIndex(io, flags, (e) => e.outline(path));
  io.out(flags.json ? `${JSON.stringify(outline, null, 2)}\n` : formatOutline(outline));
  return 0;
}

export async function relatedCommand(io: CliIO, path: string, flags: StructureFlags): Promise<number> {
  const limit = parseIntFlag(flags.k, '-k', 200);
  checkPathArgument(path);
  const related = await withIndex(io, flags, (e) => e.related(path, { limit }));
  io.out(flags.json ? `${JSON.stringify(related, null, 2)}\n` : formatRelated(related));
  return 0;
}

export async function diagnosticsCommand(io: CliIO, path: string | undefined, flags: StructureFlags): Promise<number> {
  const limit = parseIntFlag(flags.k, '-k', 1000);
  if (path !== undefined) checkPathArgument(path);
  const report = await withIndex(io, flags, (e) => e.diagnostics(path, { limit }));
  io.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatDiagnostics(report));
  return 0;
}
