import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { lazyAction, type CommandResult } from '../lazy-action.js';

/** Registers `scry models list|pull|remove|verify` on the program; their implementations load when they run. */
export function registerModelsCommand(program: Command, io: CliIO, result: CommandResult): void {
  const run = (name: 'modelsListCommand' | 'modelsPullCommand' | 'modelsRemoveCommand' | 'modelsVerifyCommand') => lazyAction(io, result, () => import('./models-command.js').then((m) => m[name]));
  const rootOption = ['-C, --root <dir>', "project root whose scry.config.json is read for models.dir and models.hubUrl (default: current directory)"] as const;
  const models = program
    .command('models')
    .summary('List, pull, verify and remove local embedding models (the only command that downloads one)')
    .description(
      'Manage local embedding models (Hugging Face hub layout) in the model cache: models.dir in scry.config.json, default <user cache>/scry/models ($SCRY_CACHE_DIR/models). ' +
        '`pull` is the only command that downloads a model; `index` and `search` never do.',
    )
    .addHelpText('after', '\nExamples:\n  scry models pull Xenova/bge-small-en-v1.5\n  scry models pull Xenova/all-MiniLM-L6-v2 --quantized --revision main\n  scry models list --json\n  scry models verify\n  scry models remove Xenova/all-MiniLM-L6-v2');

  models
    .command('list')
    .summary('List the pulled models with a quick check (sizes)')
    .description('List the pulled models: revision, commit, ONNX graph, size, pull time and a quick check (manifest, required files, sizes; `verify` re-hashes).')
    .option(...rootOption)
    .option('--json', 'JSON output: {dir, models: [{name, dir, revision, commit, pulledAt, model, files: [{path, size, sha256}], bytes, ok, problems: [{kind, path, message}]}]}')
    .action(run('modelsListCommand'));

  models
    .command('pull')
    .summary('Download a model from the hub, verify it and activate it atomically')
    .description(
      'Download a model from the hub into the cache: tokenizer.json (required), config.json, tokenizer_config.json and special_tokens_map.json when present, and one ONNX graph (onnx/model.onnx, else model.onnx). ' +
        'Each file is streamed to disk and checked against the size and sha256 the hub publishes; the set is re-verified, its manifest (scry-manifest.json) written, and only then it replaces the previous copy, in one rename. ' +
        'A failed or interrupted pull leaves the previous copy as it was. Contacts models.hubUrl (default https://huggingface.co) and the CDN it redirects to, nothing else.',
    )
    .argument('<name>', 'hub model id, owner/name (e.g. Xenova/bge-small-en-v1.5)')
    .option('--revision <rev>', 'branch, tag or commit to pull (default main)')
    .option('--quantized', 'prefer the int8 graph (onnx/model_quantized.onnx) when the repository has one: about 4x smaller, slightly less accurate')
    .option('--file <path>', 'also pull this repository file, e.g. 1_Pooling/config.json (repeatable, comma-separated)', (v: string, prev: string[] = []) => [...prev, ...v.split(',')])
    .option('--hub <url>', 'hub to pull from, overriding models.hubUrl (a mirror, or a local server in tests)')
    .option(...rootOption)
    .option('--json', 'JSON output: {name, dir, revision, commit, hubUrl, model, files: [{path, size, sha256}], bytes, replaced, tookMs}')
    .addHelpText('after', '\nA progress bar goes to stderr when it is a terminal. Exit codes: 0 pulled, 2 bad name or a repository without ONNX export or tokenizer.json, 3 not on the hub, 1 download or verification failed.')
    .action(run('modelsPullCommand'));

  models
    .command('remove')
    .description('Delete a pulled model from the cache: its directory, manifest included')
    .argument('<name>', 'hub model id, owner/name')
    .option(...rootOption)
    .option('--json', 'JSON output: {name, dir, bytes}')
    .action(run('modelsRemoveCommand'));

  models
    .command('verify')
    .summary('Re-hash models against their manifests; exit 1 when any fails')
    .description('Re-hash every file of a model (all models when NAME is omitted) against its manifest: reports missing, changed and unlisted files and missing required ones. Exits 1 when any model fails, 3 when NAME is not in the cache.')
    .argument('[name]', 'hub model id, owner/name')
    .option(...rootOption)
    .option('--json', 'JSON output: {dir, ok, models: [{name, dir, ok, files, bytes, problems: [{kind, path, message}]}]}')
    .action(run('modelsVerifyCommand'));
}
