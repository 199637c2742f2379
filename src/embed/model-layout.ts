import { join } from 'node:path';
import { EngineError } from '../core/errors.js';

/**
 * Where a pulled model lives in the model cache (`models.dir`): one directory per model, named
 * after its hub id with `/` written as `--` (`BAAI/bge-small-en-v1.5` → `BAAI--bge-small-en-v1.5`),
 * holding the hub's files at their repository paths and `scry-manifest.json` (what was pulled,
 * with sizes and sha256). A directory without a manifest, or whose files disagree with it, is not
 * a usable model.
 */
export const MANIFEST_FILE = 'scry-manifest.json';

/** A hub model id: `owner/name`, each part letters, digits, `-`, `_` and `.`, not starting with `.`. */
export const MODEL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,95}\/[A-Za-z0-9_][A-Za-z0-9_.-]{0,95}$/;

/** The directory of model `name` under `modelsDir`; throws INVALID_ARGUMENT for a malformed name. */
export function modelDirOf(modelsDir: string, name: string): string {
  if (typeof name !== 'string' || !MODEL_NAME.test(name) || name.includes('..')) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'model', reason: `"${String(name)}" is not a hub model id (owner/name)` });
  }
  return join(modelsDir, name.replace('/', '--'));
}
