import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { lazyAction, type CommandResult } from '../lazy-action.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, ...value.split(',')];

/** Registers `scry collection add|list|remove|rename|index`; their implementations load when they run. */
export function registerCollectionCommand(program: Command, io: CliIO, result: CommandResult): void {
  type Name = 'collectionAddCommand' | 'collectionListCommand' | 'collectionRemoveCommand' | 'collectionRenameCommand' | 'collectionIndexCommand';
  const run = (name: Name) => lazyAction(io, result, () => import('./collection-command.js').then((m) => m[name]));
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
    .action(run('collectionAddCommand'));
  cmd
    .command('list')
    .description('List the registered collections.')
    .option('--json', 'JSON output: {collections: [...]}')
    .action(run('collectionListCommand'));
  cmd
    .command('remove')
    .description("Unregister collection NAME and delete its index (the collection's files are untouched).")
    .argument('<name>')
    .option('--json', 'JSON output: the removed collection')
    .action(run('collectionRemoveCommand'));
  cmd
    .command('rename')
    .description('Rename collection FROM to TO; its index is kept.')
    .argument('<from>')
    .argument('<to>')
    .option('--json', 'JSON output: the renamed collection')
    .action(run('collectionRenameCommand'));
  cmd
    .command('index')
    .description("Build or refresh collection NAME's index (incremental).")
    .argument('<name>')
    .option('--json', 'machine-readable output')
    .action(run('collectionIndexCommand'));
}
