import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { EngineError, isEngineError } from '../core/errors.js';
import { resolveConfig } from '../config/resolve.js';
import { downloadFile, fetchRevision, type HubContext } from './hub-client.js';
import { modelDirOf } from './model-layout.js';
import { selectModelFiles } from './model-files.js';
import { checkModelDir, MANIFEST_FORMAT, readManifest, writeManifest, type ManifestFile, type ModelManifest, type ModelProblem } from './model-manifest.js';

/**
 * The model cache (`models.dir`): list, pull, verify and remove models in the Hugging Face hub
 * layout (issue 8). `pullModel` is the only code path in scry that downloads a model; `index` and
 * `search` only ever read what a pull left.
 *
 * A pull lands in `.partial-<dir>-<pid>-<random>` inside the cache, is verified there, gets its
 * manifest last, and is then renamed into place. A model it replaces is first renamed aside
 * (`.old-…`) and removed after, so a failure at any point leaves the previous copy whole; between
 * the two renames (microseconds) the model is briefly absent. Leftovers of a pull whose process
 * died are removed by the next pull.
 */

/** A model directory in the cache, checked cheaply (manifest, required files, sizes; no hashing). */
export interface InstalledModel {
  /** Hub model id, `owner/name`. */
  readonly name: string;
  /** Its directory. */
  readonly dir: string;
  /** Revision asked for, commit it resolved to, time of the pull; null without a readable manifest. */
  readonly revision: string | null;
  readonly commit: string | null;
  readonly pulledAt: string | null;
  /** The ONNX graph to load, relative to `dir`. */
  readonly model: string | null;
  readonly files: readonly ManifestFile[];
  /** Sum of the files' sizes, as the manifest lists them. */
  readonly bytes: number;
  /** True when the manifest reads and nothing below is wrong. */
  readonly ok: boolean;
  readonly problems: readonly ModelProblem[];
}

/** What `verifyModel` found: every file re-hashed against the manifest. */
export interface ModelVerification {
  readonly name: string;
  readonly dir: string;
  readonly ok: boolean;
  /** Files the manifest lists and their total size. */
  readonly files: number;
  readonly bytes: number;
  readonly problems: readonly ModelProblem[];
}

/** One step of a pull, reported as bytes arrive. */
export interface PullProgress {
  /** The file being downloaded, and its bytes so far and in all (when the hub says). */
  readonly file: string;
  readonly fileBytes: number;
  readonly fileTotal: number | undefined;
  readonly filesDone: number;
  readonly filesTotal: number;
  readonly bytesDone: number;
  /** All files' bytes, when the hub lists every size. */
  readonly bytesTotal: number | undefined;
}

export interface PullModelOptions {
  /** The model cache (`models.dir`); created when missing. */
  readonly dir: string;
  /** The hub to download from (`models.hubUrl`), e.g. `https://huggingface.co`: the only host contacted, besides the CDN it redirects to. */
  readonly hubUrl: string;
  /** Branch, tag or commit to pull. Default `main`. */
  readonly revision?: string | undefined;
  /** Prefer the int8 graph (`onnx/model_quantized.onnx`) when the repository has one. Default false. */
  readonly quantized?: boolean | undefined;
  /** More repository paths to pull besides the selection, e.g. `1_Pooling/config.json`. */
  readonly files?: readonly string[] | undefined;
  /** The fetch to use. Default: the global fetch. */
  readonly fetch?: typeof fetch | undefined;
  readonly onProgress?: ((progress: PullProgress) => void) | undefined;
  /** Aborts the pull; nothing is activated and the partial directory is removed. */
  readonly signal?: AbortSignal | undefined;
  /** A request that receives nothing for this long fails the pull with IO_ERROR. Range ≥ 1 ms; default 60,000 (60 s). */
  readonly stallTimeoutMs?: number | undefined;
  /** Time source for `pulledAt`. Default: the system clock. */
  readonly now?: (() => Date) | undefined;
}

export interface PullResult {
  readonly name: string;
  /** The model's directory, now active. */
  readonly dir: string;
  readonly manifest: ModelManifest;
  readonly bytes: number;
  /** True when an earlier copy of the model was replaced. */
  readonly replaced: boolean;
  readonly tookMs: number;
}

export interface RemovedModel {
  readonly name: string;
  readonly dir: string;
  /** Bytes freed. */
  readonly bytes: number;
}

/** Where models live and where they are pulled from. */
export interface ModelsLocation {
  readonly dir: string;
  readonly hubUrl: string;
}

/** `models.dir` and `models.hubUrl` for a project root, from its config file and the environment (`SCRY_CACHE_DIR`), `hubUrl` overriding. */
export async function resolveModelsConfig(options: { root: string; hubUrl?: string | undefined }): Promise<ModelsLocation> {
  const overrides = options.hubUrl !== undefined ? { models: { hubUrl: options.hubUrl } } : undefined;
  const config = await resolveConfig({ root: options.root, overrides });
  return { dir: config.models.dir, hubUrl: config.models.hubUrl };
}

/** Default of {@link PullModelOptions.stallTimeoutMs}. */
export const DEFAULT_STALL_MS = 60_000;

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Model directories in the cache, by name; hidden (work) directories and names that are not model ids are skipped. */
export async function listModels(dir: string): Promise<InstalledModel[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
    if (errno(err) === 'ENOENT') return [];
    throw new EngineError('IO_ERROR', { path: dir, reason: (err as Error).message }, { cause: err });
  });
  const out: InstalledModel[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const name = entry.name.replace('--', '/');
    let modelDir: string;
    try {
      modelDir = modelDirOf(dir, name);
    } catch {
      continue;
    }
    out.push(await inspect(name, modelDir));
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

async function inspect(name: string, modelDir: string): Promise<InstalledModel> {
  const read = await readManifest(modelDir);
  if ('problem' in read) {
    return { name, dir: modelDir, revision: null, commit: null, pulledAt: null, model: null, files: [], bytes: 0, ok: false, problems: [read.problem] };
  }
  const m = read.manifest;
  const problems = [...nameProblem(m, name), ...(await checkModelDir(modelDir, m, { hashes: false }))];
  const bytes = m.files.reduce((sum, f) => sum + f.size, 0);
  return { name, dir: modelDir, revision: m.revision, commit: m.commit, pulledAt: m.pulledAt, model: m.model, files: m.files, bytes, ok: problems.length === 0, problems };
}

function nameProblem(manifest: ModelManifest, name: string): ModelProblem[] {
  return manifest.name === name ? [] : [{ kind: 'manifest', path: 'scry-manifest.json', message: `names ${manifest.name}, but the directory is ${name}'s` }];
}

/** Re-hashes every file of model `name` against its manifest. Throws MODEL_NOT_FOUND when it is not in `dir`. */
export async function verifyModel(dir: string, name: string): Promise<ModelVerification> {
  const modelDir = modelDirOf(dir, name);
  if (!(await exists(modelDir))) throw new EngineError('MODEL_NOT_FOUND', { model: name, dir });
  const read = await readManifest(modelDir);
  if ('problem' in read) return { name, dir: modelDir, ok: false, files: 0, bytes: 0, problems: [read.problem] };
  const m = read.manifest;
  const problems = [...nameProblem(m, name), ...(await checkModelDir(modelDir, m, { hashes: true }))];
  return { name, dir: modelDir, ok: problems.length === 0, files: m.files.length, bytes: m.files.reduce((sum, f) => sum + f.size, 0), problems };
}

async function diskBytes(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const abs = join(path, entry.name);
    total += entry.isDirectory() ? await diskBytes(abs) : ((await stat(abs).catch(() => undefined))?.size ?? 0);
  }
  return total;
}

const asideName = (dir: string, modelDir: string): string => join(dir, `.old-${basename(modelDir)}-${process.pid}-${randomBytes(4).toString('hex')}`);

/** Removes model `name` from `dir` (renamed aside first, so it never looks half-installed). Throws MODEL_NOT_FOUND when absent. */
export async function removeModel(dir: string, name: string): Promise<RemovedModel> {
  const modelDir = modelDirOf(dir, name);
  if (!(await exists(modelDir))) throw new EngineError('MODEL_NOT_FOUND', { model: name, dir });
  const bytes = await diskBytes(modelDir);
  const aside = asideName(dir, modelDir);
  try {
    await rename(modelDir, aside);
  } catch (err) {
    throw activationError(modelDir, err);
  }
  await rm(aside, { recursive: true, force: true }).catch(() => {});
  return { name, dir: modelDir, bytes };
}

function activationError(path: string, err: unknown): EngineError {
  return new EngineError('IO_ERROR', { path, reason: (err as Error).message }, { cause: err, hint: 'close programs using the model (a running `scry mcp` or `scry watch`) and try again' });
}

const WORK_DIR = /^\.(partial|old)-.+-(\d+)-[A-Za-z0-9]+$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errno(err) === 'EPERM';
  }
}

/** Removes `.partial-*` and `.old-*` directories whose process is gone (a pull that was killed). */
async function removeStale(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const m = WORK_DIR.exec(entry.name);
    if (!entry.isDirectory() || m === null || alive(Number(m[2]))) continue;
    await rm(join(dir, entry.name), { recursive: true, force: true }).catch(() => {});
  }
}

/** Creates the cache when missing, clears dead pulls' leftovers, and makes this pull's work directory. */
async function makePartial(dir: string, modelDir: string): Promise<string> {
  const partial = join(dir, `.partial-${basename(modelDir)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true });
    await removeStale(dir);
    await mkdir(partial);
  } catch (err) {
    throw new EngineError('IO_ERROR', { path: dir, reason: (err as Error).message }, { cause: err, hint: 'models.dir must be a writable directory' });
  }
  return partial;
}

/** Moves `partial` into place as `modelDir`; returns whether a previous copy was replaced. */
async function activate(dir: string, modelDir: string, partial: string): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const aside = asideName(dir, modelDir);
    let replaced = true;
    try {
      await rename(modelDir, aside);
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw activationError(modelDir, err);
      replaced = false;
    }
    try {
      await rename(partial, modelDir);
    } catch (err) {
      if (replaced) await rename(aside, modelDir).catch(() => {});
      // another pull of the same model activated between our two renames: go again
      if ((errno(err) === 'ENOTEMPTY' || errno(err) === 'EEXIST') && attempt < 3) continue;
      throw activationError(modelDir, err);
    }
    if (replaced) await rm(aside, { recursive: true, force: true }).catch(() => {});
    return replaced;
  }
}

function checkPullOptions(options: PullModelOptions): string {
  let url: URL | undefined;
  try {
    url = new URL(options.hubUrl);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'hubUrl', reason: `"${options.hubUrl}" is not an http(s) URL` });
  }
  const revision = options.revision ?? 'main';
  // eslint-disable-next-line no-control-regex
  if (revision.length === 0 || revision.length > 255 || /[\s\x00-\x1f]/.test(revision)) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'revision', reason: `"${revision}" is not a branch, tag or commit` });
  }
  const stall = options.stallTimeoutMs;
  if (stall !== undefined && !(Number.isFinite(stall) && stall >= 1)) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'stallTimeoutMs', reason: `${stall} is not a positive number of milliseconds` });
  }
  return revision;
}

/**
 * Pulls model `name` from the hub into the cache: asks which files the revision holds, picks
 * tokenizer.json, the configs and one ONNX graph, downloads them (streamed, sha256 checked against
 * the hub), re-verifies them on disk, writes the manifest and activates the directory by rename.
 * Errors: INVALID_ARGUMENT (bad name, revision, or a repository without ONNX export or
 * tokenizer.json), MODEL_NOT_FOUND (the hub does not know it), MODEL_INVALID (a file differs from
 * what the hub promised), IO_ERROR (network, disk).
 */
export async function pullModel(name: string, options: PullModelOptions): Promise<PullResult> {
  const started = Date.now();
  const modelDir = modelDirOf(options.dir, name);
  const revision = checkPullOptions(options);
  const ctx: HubContext = { name, hubUrl: options.hubUrl, fetch: options.fetch ?? globalThis.fetch, signal: options.signal, stallMs: options.stallTimeoutMs ?? DEFAULT_STALL_MS };
  const remote = await fetchRevision(ctx, revision);
  const selection = selectModelFiles(name, remote.files.map((f) => f.path), { quantized: options.quantized, extra: options.files });
  const byPath = new Map(remote.files.map((f) => [f.path, f]));
  const selected = selection.paths.map((path) => byPath.get(path) ?? { path });

  const partial = await makePartial(options.dir, modelDir);
  try {
    const sizes = selected.map((f) => f.size);
    const bytesTotal = sizes.every((s) => s !== undefined) ? sizes.reduce<number>((a, b) => a + (b ?? 0), 0) : undefined;
    let bytesDone = 0;
    const files: ManifestFile[] = [];
    for (const file of selected) {
      const dest = join(partial, file.path);
      await mkdir(dirname(dest), { recursive: true });
      let fileBytes = 0;
      const got = await downloadFile(ctx, remote.commit, file, dest, (n) => {
        fileBytes += n;
        bytesDone += n;
        options.onProgress?.({ file: file.path, fileBytes, fileTotal: file.size, filesDone: files.length, filesTotal: selected.length, bytesDone, bytesTotal });
      });
      files.push({ path: file.path, size: got.size, sha256: got.sha256 });
    }
    const manifest: ModelManifest = {
      format: MANIFEST_FORMAT,
      name,
      revision,
      commit: remote.commit,
      hubUrl: options.hubUrl,
      pulledAt: (options.now?.() ?? new Date()).toISOString(),
      model: selection.model,
      files,
    };
    // what was hashed in flight is read back from disk before anything becomes active
    const problems = await checkModelDir(partial, manifest, { hashes: true });
    if (problems.length > 0) {
      throw new EngineError('MODEL_INVALID', { model: name, reason: problems.map((p) => `${p.path}: ${p.message}`).join('; ') });
    }
    await writeManifest(partial, manifest);
    const replaced = await activate(options.dir, modelDir, partial);
    return { name, dir: modelDir, manifest, bytes: files.reduce((sum, f) => sum + f.size, 0), replaced, tookMs: Date.now() - started };
  } catch (err) {
    await rm(partial, { recursive: true, force: true }).catch(() => {});
    if (isEngineError(err) || options.signal?.aborted) throw err;
    throw new EngineError('IO_ERROR', { path: partial, reason: (err as Error).message }, { cause: err });
  }
}
