import {
  addCollection, listCollections, openCollection, removeCollection, renameCollection,
  type CollectionInfo, type ContentType,
} from '../../index.js';
import { EXIT } from '../exit-codes.js';
import { formatIndexReport } from '../format.js';
import type { CliIO } from '../io.js';
import { progressBar } from '../progress-bar.js';

export interface CollectionAddFlags {
  glob?: string[];
  exclude?: string[];
  type?: string[];
  recency?: string;
  json?: boolean;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

function describe(c: CollectionInfo): string {
  const rules = [c.include.length > 0 ? `include ${c.include.join(',')}` : '', c.exclude.length > 0 ? `exclude ${c.exclude.join(',')}` : '', c.types.length > 0 ? `types ${c.types.join(',')}` : '']
    .filter(Boolean)
    .join('; ');
  return `${c.name}  ${c.root}${rules ? `  (${rules})` : ''}  recency ${c.recency}\n`;
}

function parseRecency(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : Number.NaN;
}

/** `scry collection add NAME DIR`: registers a collection (indexed on first search, or by `scry collection index NAME`). */
export function collectionAddCommand(io: CliIO, name: string, dir: string, flags: CollectionAddFlags): number {
  const added = addCollection(name, `${dir.startsWith('/') ? '' : `${io.cwd}/`}${dir}`, {
    include: flags.glob,
    exclude: flags.exclude,
    types: flags.type as ContentType[] | undefined,
    recency: parseRecency(flags.recency),
  });
  io.out(flags.json ? json(added) : `added ${describe(added)}`);
  return EXIT.ok;
}

/** `scry collection index NAME`: builds or refreshes one collection's index. */
export async function collectionIndexCommand(io: CliIO, name: string, flags: { json?: boolean }): Promise<number> {
  const engine = await openCollection(name);
  const bar = await progressBar(io);
  try {
    const report = await engine.index({ onProgress: bar.onProgress });
    bar.stop();
    io.out(flags.json ? json({ collection: name, root: engine.root, db: engine.dbPath, ...report }) : formatIndexReport(report));
    return EXIT.ok;
  } finally {
    bar.stop();
    engine.close();
  }
}

export function collectionListCommand(io: CliIO, flags: { json?: boolean }): number {
  const all = listCollections();
  io.out(flags.json ? json({ collections: all }) : all.length === 0 ? 'no collections; add one with `scry collection add NAME DIR`\n' : all.map(describe).join(''));
  return EXIT.ok;
}

export function collectionRemoveCommand(io: CliIO, name: string, flags: { json?: boolean }): number {
  const removed = removeCollection(name);
  io.out(flags.json ? json(removed) : `removed ${removed.name} (index ${removed.dbPath} deleted)\n`);
  return EXIT.ok;
}

export function collectionRenameCommand(io: CliIO, from: string, to: string, flags: { json?: boolean }): number {
  const renamed = renameCollection(from, to);
  io.out(flags.json ? json(renamed) : `renamed ${from} to ${renamed.name}\n`);
  return EXIT.ok;
}
