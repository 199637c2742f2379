import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { lazyAction, type CommandResult } from '../lazy-action.js';

/** The providers `--provider` takes, as the help names them: EMBED_PROVIDERS, which the library owns (pinned by test/unit/cli/lazy-commands.test.ts). */
const PROVIDERS = ['builtin', 'ollama', 'openai', 'onnx', 'use-lite'] as const;

/** Registers `scry embed` and `scry similar` on the program; their implementations load when they run. */
export function registerEmbedCommands(program: Command, io: CliIO, result: CommandResult): void {
  const run = (name: 'embedCommand' | 'similarCommand') => lazyAction(io, result, () => import('./embed-command.js').then((m) => m[name]));
  program
    .command('embed')
    .description(
      'Embed every chunk text of the index that has no vector for the embedding model yet (after an incremental pass), with progress; resumable: what was embedded is kept if it stops. ' +
        'The provider comes from `embed` in scry.config.json, or from --provider for this run. Vectors are cached by chunk content hash and model fingerprint.',
    )
    .argument('[dir]', 'project root (default: the root stored in --db, else the current directory)')
    .option('--db <path>', 'index database to use')
    .option('--provider <name>', `embedding provider for this run: ${PROVIDERS.join(', ')}`)
    .option('--model <name>', 'model: the Ollama/OpenAI model name, or for onnx a pulled model id (owner/name) or a model directory')
    .option('--url <url>', 'endpoint: Ollama base URL (default http://127.0.0.1:11434), or the OpenAI-compatible API root (…/v1)')
    .option('--json', 'machine-readable output: the index report with `embedding`')
    .addHelpText('after', '\nExamples:\n  scry embed --provider ollama --model nomic-embed-text\n  scry embed --provider openai --url http://localhost:8080/v1 --model bge-small\n  scry embed --provider onnx --model Xenova/bge-small-en-v1.5   # after scry models pull\n  scry embed --provider builtin    # scry\'s own code-search model, shipped in the package\n  scry embed --provider use-lite   # bundled USE-lite: no setup, slow, weak on code')
    .action(run('embedCommand'));

  program
    .command('similar')
    .description('Find code similar to a snippet: FILE, FILE:START-END or - (stdin). A vector search when the index has vectors; otherwise the snippet\'s most distinctive identifiers, lexically (said in the summary line). The snippet\'s own file is left out.')
    .argument('<target>', 'FILE, FILE:START-END, or - for stdin')
    .option('--db <path>', 'index database to use')
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('-k <n>', 'number of results (1-100, default 5)')
    .option('--lang <language>', 'only this language')
    .option('--json', 'JSON output, as scry search --json')
    .option('--no-color', 'no ANSI colour in human output (also when the NO_COLOR environment variable is set)')
    .addHelpText('after', '\nExamples:\n  scry similar src/db/open.ts:10-40\n  pbpaste | scry similar - -k 10')
    .action(run('similarCommand'));
}
