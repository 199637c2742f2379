import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MANIFEST_FILE } from './model-layout.js';
import { isSafeRepoPath, missingRequired } from './model-files.js';

/**
 * `scry-manifest.json`, written last into a pulled model's directory: what was pulled, from where,
 * and the size and sha256 of every file. Bump {@link MANIFEST_FORMAT} when a field changes meaning;
 * a directory with another format is reported, never guessed at.
 *   1: first format (issue 8).
 */
export const MANIFEST_FORMAT = 1;

/** One pulled file. */
export interface ManifestFile {
  /** Path inside the model directory, the same as in the hub repository (`onnx/model.onnx`). */
  readonly path: string;
  readonly size: number;
  /** Lowercase hex sha256 of the content. */
  readonly sha256: string;
}

export interface ModelManifest {
  readonly format: typeof MANIFEST_FORMAT;
  /** Hub model id, `owner/name`. */
  readonly name: string;
  /** The revision asked for (a branch, tag or commit), default `main`. */
  readonly revision: string;
  /** The commit it resolved to, which every file was downloaded at. */
  readonly commit: string;
  /** The hub it came from. */
  readonly hubUrl: string;
  /** ISO 8601 time the pull finished. */
  readonly pulledAt: string;
  /** The ONNX graph to load (`onnx/model.onnx`, `model.onnx`, or a quantized one); one of `files`. */
  readonly model: string;
  readonly files: readonly ManifestFile[];
}

/** Why a model directory is not usable as it stands. */
export type ModelProblemKind = 'manifest' | 'required' | 'missing' | 'size' | 'sha256' | 'extra';

export interface ModelProblem {
  readonly kind: ModelProblemKind;
  /** The file concerned, relative to the model directory. */
  readonly path: string;
  readonly message: string;
}

/** The manifest of `modelDir`, or the problem that stops it from being read. */
export async function readManifest(modelDir: string): Promise<{ manifest: ModelManifest } | { problem: ModelProblem }> {
  let text: string;
  try {
    text = await readFile(join(modelDir, MANIFEST_FILE), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: { kind: 'manifest', path: MANIFEST_FILE, message: code === 'ENOENT' ? 'no manifest: not pulled by scry, or the pull never finished' : `unreadable: ${(err as Error).message}` } };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: { kind: 'manifest', path: MANIFEST_FILE, message: 'not JSON' } };
  }
  // the schema module loads zod: only when a manifest is read (start-up, issue 19: `scry search` never reads one)
  const { manifestSchema } = await import('./model-manifest-schema.js');
  const parsed = manifestSchema(MANIFEST_FORMAT, isSafeRepoPath).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { problem: { kind: 'manifest', path: MANIFEST_FILE, message: `invalid: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? ''}` } };
  }
  return { manifest: parsed.data as ModelManifest };
}

export async function writeManifest(modelDir: string, manifest: ModelManifest): Promise<void> {
  await writeFile(join(modelDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
}

/** Streams a file through sha256. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Every file under `dir`, as `/`-separated relative paths. */
async function walk(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await walk(join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out;
}

/**
 * Checks `modelDir` against its manifest: required files listed, every listed file present with its
 * size, no unlisted file (a stray `model.onnx` could be loaded instead of the verified one) and,
 * with `hashes`, every sha256 (reads every byte; without it, the check costs a few stats).
 */
export async function checkModelDir(modelDir: string, manifest: ModelManifest, options: { hashes: boolean }): Promise<ModelProblem[]> {
  const problems: ModelProblem[] = missingRequired(
    manifest.files.map((f) => f.path),
    manifest.model,
  ).map((path) => ({ kind: 'required', path, message: 'required, but not in the manifest' }));
  for (const file of manifest.files) {
    const abs = join(modelDir, file.path);
    const info = await stat(abs).catch(() => undefined);
    if (info === undefined || !info.isFile()) {
      problems.push({ kind: 'missing', path: file.path, message: 'listed in the manifest, missing on disk' });
    } else if (info.size !== file.size) {
      problems.push({ kind: 'size', path: file.path, message: `${info.size} bytes, the manifest says ${file.size}` });
    } else if (options.hashes) {
      const sha256 = await sha256File(abs);
      if (sha256 !== file.sha256) problems.push({ kind: 'sha256', path: file.path, message: `sha256 ${sha256}, the manifest says ${file.sha256}` });
    }
  }
  const listed = new Set([MANIFEST_FILE, ...manifest.files.map((f) => f.path)]);
  for (const path of await walk(modelDir)) {
    if (!listed.has(path)) problems.push({ kind: 'extra', path, message: 'on disk, but not in the manifest' });
  }
  return problems;
}
