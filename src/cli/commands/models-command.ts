import type { Command } from 'commander';
import {
  listModels,
  pullModel,
  removeModel,
  resolveModelsConfig,
  verifyModel,
  type InstalledModel,
  type ModelsLocation,
  type ModelVerification,
  type PullProgress,
  type PullResult,
} from '../../index.js';
import { EXIT } from '../exit-codes.js';
import { formatBytes } from '../format.js';
import type { CliIO } from '../io.js';

export interface ModelsFlags {
  root?: string;
  hub?: string;
  json?: boolean;
}

export interface PullFlags extends ModelsFlags {
  revision?: string;
  quantized?: boolean;
  file?: string[];
}

const where = (io: CliIO, flags: ModelsFlags): Promise<ModelsLocation> => resolveModelsConfig({ root: flags.root ?? io.cwd, hubUrl: flags.hub });
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const short = (commit: string | null): string => (commit ?? '-').slice(0, 7);
const when = (iso: string | null): string => (iso === null ? '-' : iso.slice(0, 16).replace('T', ' '));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

function formatList(dir: string, models: readonly InstalledModel[]): string {
  if (models.length === 0) return `no models in ${dir}; pull one with \`scry models pull NAME\`\n`;
  const rows = [['NAME', 'REVISION', 'COMMIT', 'MODEL', 'SIZE', 'PULLED (UTC)', 'STATUS']];
  for (const m of models) rows.push([m.name, m.revision ?? '-', short(m.commit), m.model ?? '-', formatBytes(m.bytes), when(m.pulledAt), m.ok ? 'ok' : 'broken']);
  const problems = models.filter((m) => !m.ok).flatMap((m) => m.problems.map((p) => `  ${m.name}: ${p.path}: ${p.message}\n`));
  return table(rows) + (problems.length > 0 ? `problems (\`scry models pull NAME\` again to repair):\n${problems.join('')}` : '') + `${models.length} model${models.length === 1 ? '' : 's'} in ${dir}\n`;
}

/** `scry models list`: the models in the cache, checked cheaply (sizes, no hashing). */
export async function modelsListCommand(io: CliIO, flags: ModelsFlags): Promise<number> {
  const { dir } = await where(io, flags);
  const models = await listModels(dir);
  io.out(flags.json ? json({ dir, models }) : formatList(dir, models));
  return EXIT.ok;
}

/** A bytes/s + ETA bar on stderr when it is a terminal; silent otherwise. */
async function pullBar(io: CliIO, name: string): Promise<{ onProgress: (p: PullProgress) => void; stop: () => void }> {
  if (!io.stderrIsTTY || !io.stderrStream) return { onProgress: () => {}, stop: () => {} };
  const { default: cliProgress } = await import('cli-progress');
  const started = Date.now();
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
  const bar = new cliProgress.SingleBar(
    { stream: io.stderrStream, format: `${name} |{bar}| {percentage}% · {done}/{all} MB · {mbps} MB/s · ETA {eta_formatted} · {file}`, hideCursor: true, clearOnComplete: true, fps: 10 },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  return {
    onProgress: (p) => {
      const total = Math.max(p.bytesTotal ?? p.bytesDone, 1);
      const payload = { done: mb(p.bytesDone), all: p.bytesTotal === undefined ? '?' : mb(p.bytesTotal), mbps: mb(p.bytesDone / Math.max(0.001, (Date.now() - started) / 1000)), file: p.file };
      if (!running) bar.start(total, p.bytesDone, payload);
      else {
        bar.setTotal(total);
        bar.update(p.bytesDone, payload);
      }
      running = true;
    },
    stop: () => {
      if (running) bar.stop();
      running = false;
    },
  };
}

function pullJson(r: PullResult): unknown {
  const m = r.manifest;
  return { name: r.name, dir: r.dir, revision: m.revision, commit: m.commit, hubUrl: m.hubUrl, model: m.model, files: m.files, bytes: r.bytes, replaced: r.replaced, tookMs: r.tookMs };
}

/** `scry models pull NAME`: download, verify and activate. */
export async function modelsPullCommand(io: CliIO, name: string, flags: PullFlags): Promise<number> {
  const { dir, hubUrl } = await where(io, flags);
  const bar = await pullBar(io, name);
  let result: PullResult;
  try {
    result = await pullModel(name, { dir, hubUrl, revision: flags.revision, quantized: flags.quantized, files: flags.file, onProgress: bar.onProgress });
  } finally {
    bar.stop();
  }
  const m = result.manifest;
  io.out(
    flags.json
      ? json(pullJson(result))
      : `pulled ${name} (${m.revision} @ ${short(m.commit)}, ${m.model}, ${m.files.length} files, ${formatBytes(result.bytes)}) into ${result.dir} in ${(result.tookMs / 1000).toFixed(1)} s${result.replaced ? ', replacing the previous copy' : ''}\n`,
  );
  return EXIT.ok;
}

/** `scry models remove NAME`. */
export async function modelsRemoveCommand(io: CliIO, name: string, flags: ModelsFlags): Promise<number> {
  const { dir } = await where(io, flags);
  const removed = await removeModel(dir, name);
  io.out(flags.json ? json(removed) : `removed ${removed.name} (${formatBytes(removed.bytes)}) from ${dir}\n`);
  return EXIT.ok;
}

function formatVerification(v: ModelVerification): string {
  const head = `${v.ok ? 'ok  ' : 'FAIL'}  ${v.name} (${v.files} files, ${formatBytes(v.bytes)})\n`;
  return head + v.problems.map((p) => `        ${p.path}: ${p.message}\n`).join('');
}

/** `scry models verify [NAME]`: re-hash one model, or every model in the cache; exit 1 when any fails. */
export async function modelsVerifyCommand(io: CliIO, name: string | undefined, flags: ModelsFlags): Promise<number> {
  const { dir } = await where(io, flags);
  const names = name !== undefined ? [name] : (await listModels(dir)).map((m) => m.name);
  const models: ModelVerification[] = [];
  for (const n of names) models.push(await verifyModel(dir, n));
  const failed = models.filter((v) => !v.ok).length;
  if (flags.json) io.out(json({ dir, ok: failed === 0, models }));
  else if (models.length === 0) io.out(`no models in ${dir}\n`);
  else io.out(models.map(formatVerification).join(''));
  if (failed > 0 && !flags.json) io.err(`scry: ${failed} of ${models.length} model${models.length === 1 ? '' : 's'} failed verification; pull ${failed === 1 ? 'it' : 'them'} again with \`scry models pull NAME\`\n`);
  return failed > 0 ? EXIT.failure : EXIT.ok;
}

/** Registers `scry models list|pull|remove|verify` on the program. */
export function registerModelsCommand(program: Command, io: CliIO, result: { code: number; json: boolean }): void {
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
    .action(async (flags: ModelsFlags) => {
      result.json = Boolean(flags.json);
      result.code = await modelsListCommand(io, flags);
    });

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
    .action(async (name: string, flags: PullFlags) => {
      result.json = Boolean(flags.json);
      result.code = await modelsPullCommand(io, name, flags);
    });

  models
    .command('remove')
    .description('Delete a pulled model from the cache: its directory, manifest included')
    .argument('<name>', 'hub model id, owner/name')
    .option(...rootOption)
    .option('--json', 'JSON output: {name, dir, bytes}')
    .action(async (name: string, flags: ModelsFlags) => {
      result.json = Boolean(flags.json);
      result.code = await modelsRemoveCommand(io, name, flags);
    });

  models
    .command('verify')
    .summary('Re-hash models against their manifests; exit 1 when any fails')
    .description('Re-hash every file of a model (all models when NAME is omitted) against its manifest: reports missing, changed and unlisted files and missing required ones. Exits 1 when any model fails, 3 when NAME is not in the cache.')
    .argument('[name]', 'hub model id, owner/name')
    .option(...rootOption)
    .option('--json', 'JSON output: {dir, ok, models: [{name, dir, ok, files, bytes, problems: [{kind, path, message}]}]}')
    .action(async (name: string | undefined, flags: ModelsFlags) => {
      result.json = Boolean(flags.json);
      result.code = await modelsVerifyCommand(io, name, flags);
    });
}
