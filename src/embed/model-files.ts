import { EngineError } from '../core/errors.js';
import { MANIFEST_FILE } from './model-layout.js';

/**
 * Which files of a hub repository make a usable embedding model, and which of those must be
 * present. A repository holds far more than a runtime needs (PyTorch, safetensors, TF, several
 * ONNX variants), so a pull takes only these.
 */

/** Must be present: the tokenizer in the `tokenizers` library format. */
export const TOKENIZER_FILE = 'tokenizer.json';

/** Pulled when the repository has them. */
export const OPTIONAL_FILES = ['config.json', 'tokenizer_config.json', 'special_tokens_map.json'] as const;

/** The ONNX graph, first match wins. */
export const ONNX_CANDIDATES = ['onnx/model.onnx', 'model.onnx'] as const;

/** With `quantized`, these come first (int8 weights: about a quarter of the size, slightly less accurate). */
export const QUANTIZED_CANDIDATES = ['onnx/model_quantized.onnx', 'model_quantized.onnx'] as const;

export interface FileSelection {
  /** Repository paths to download, the ONNX model among them. */
  readonly paths: readonly string[];
  /** The ONNX graph to load. */
  readonly model: string;
}

/** A repository path a user may ask for: relative, `/`-separated, no `.`/`..` segments, not the manifest. */
export function isSafeRepoPath(path: string): boolean {
  if (path.length === 0 || path.length > 512 || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  if (path === MANIFEST_FILE) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * Picks what to download from the repository's file list: `tokenizer.json`, the optional configs
 * that exist, one ONNX graph, and `extra` paths. Throws INVALID_ARGUMENT when the repository has no
 * tokenizer.json or no ONNX export, or an extra path is unsafe or absent.
 */
export function selectModelFiles(name: string, available: readonly string[], options: { quantized?: boolean; extra?: readonly string[] } = {}): FileSelection {
  const has = new Set(available);
  const candidates = options.quantized ? [...QUANTIZED_CANDIDATES, ...ONNX_CANDIDATES] : ONNX_CANDIDATES;
  const model = candidates.find((c) => has.has(c));
  if (model === undefined) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'model', reason: `${name} has no ONNX export (looked for ${candidates.join(', ')})` }, {
      hint: 'pick a repository that ships ONNX weights (many under Xenova/ and onnx-community/ do), or export one with optimum and pull that',
    });
  }
  if (!has.has(TOKENIZER_FILE)) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'model', reason: `${name} has no ${TOKENIZER_FILE}` }, {
      hint: 'scry reads tokenizers in the `tokenizers` library format; pick a repository that ships tokenizer.json',
    });
  }
  for (const path of options.extra ?? []) {
    if (!isSafeRepoPath(path)) throw new EngineError('INVALID_ARGUMENT', { name: 'file', reason: `"${path}" is not a relative repository path` });
    if (!has.has(path)) throw new EngineError('INVALID_ARGUMENT', { name: 'file', reason: `${name} has no file ${path}` });
  }
  const paths = [TOKENIZER_FILE, ...OPTIONAL_FILES.filter((f) => has.has(f)), model, ...(options.extra ?? [])];
  return { paths: [...new Set(paths)], model };
}

/** What a manifest's file list lacks to be a usable model: tokenizer.json and its ONNX graph. */
export function missingRequired(paths: readonly string[], model: string): string[] {
  const has = new Set(paths);
  return [TOKENIZER_FILE, model].filter((p) => !has.has(p));
}
