import type { Command } from 'commander';
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
const collect = (value: string, previous: string[] = []): string[] => [...previous, ...value.split(',')];

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

export function registerCollectionCommand(program: Command, io: CliIO, result: { code: number; json: boolean }): void {
  const cmd = program
    .command('collection')
    .description('Named collections: other roots (notes, runbooks, exported mail and tickets, PDFs) with their own rules, each indexed into its own database and searched together with `scry search --collection NAME` or `--all`.');
  cmd
    .command('add')
    .description('Register DIR as collection NAME (indexed on first search, or by `scry collection index NAME`).')
    .argument('<name>', 'collection name: letters, digits, ".", "_", "-" (not "project", the name of the current project)')
    .argument('<dir>', 'root directory of the collection')
    .option('--glob <glob>', 'only files matching these gitignore-style globs, e.g. "**/*.md" (repeatable, comma-separated)', collect)
    .option('--exclude <glob>', 'leave out files matching these globs (repeatable, comma-separated)', collect)
    .option('--type <type>', 'content types searched by default: code, docs, config, text (repeatable)', collect)
    .option('--recency <w>', 'recency boost weight 0-1 (default 0.15; 0 when --type is code only)')
    .option('--json', 'JSON output: the collection {name, id, root, include, exclude, types, recency, dbPath}')
    .addHelpText('after', '\nExamples:\n  scry collection add notes ~/notes --glob "**/*.md"\n  scry collection add mail ~/exports/mail --type docs\n  scry collection add runbooks /srv/wiki --exclude "archive/**" --recency 0.3')
    .action((name: string, dir: string, flags: CollectionAddFlags) => {
      result.json = Boolean(flags.json);
      result.code = collectionAddCommand(io, name, dir, flags);
    });
  cmd
    .command('list')
    .description('List the registered collections.')
    .option('--json', 'JSON output: {collections: [...]}')
    .action((flags: { json?: boolean }) => {
      result.json = Boolean(flags.json);
      const all = listCollections();
      io.out(flags.json ? json({ collections: all }) : all.length === 0 ? 'no collections; add one with `scry collection add NAME DIR`\n' : all.map(describe).join(''));
      result.code = EXIT.ok;
    });
  cmd
    .command('remove')
    .description("Unregister collection NAME and delete its index (the collection's files are untouched).")
    .argument('<name>')
    .option('--json', 'JSON output: the removed collection')
    .action((name: string, flags: { json?: boolean }) => {
      result.json = Boolean(flags.json);
      const removed = removeCollection(name);
      io.out(flags.json ? json(removed) : `removed ${removed.name} (index ${removed.dbPath} deleted)\n`);
      result.code = EXIT.ok;
    });
  cmd
    .command('rename')
    .description('Rename collection FROM to TO; its index is kept.')
    .argument('<from>')
    .argument('<to>')
    .option('--json', 'JSON output: the renamed collection')
    .action((from: string, to: string, flags: { json?: boolean }) => {
      result.json = Boolean(flags.json);
      const renamed = renameCollection(from, to);
      io.out(flags.json ? json(renamed) : `renamed ${from} to ${renamed.name}\n`);
      result.code = EXIT.ok;
    });
  cmd
    .command('index')
    .description("Build or refresh collection NAME's index (incremental).")
    .argument('<name>')
    .option('--json', 'machine-readable output')
    .action(async (name: string, flags: { json?: boolean }) => {
      result.json = Boolean(flags.json);
      result.code = await collectionIndexCommand(io, name, flags);
    });
}
