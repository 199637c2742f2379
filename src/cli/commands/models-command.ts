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
