import { EngineError } from '../../../src/core/errors.js';
import type { TextSource } from '../../../src/workspace/unified-diff.js';

/**
 * An in-memory workspace for the diff parser: files by path; `..` and absolute paths are outside
 * the root and `.env` is denied, like the path guard; everything else may be created.
 */
export function memorySource(files: Record<string, string>): TextSource & { files: Record<string, string> } {
  return {
    files,
    resolve(path, options) {
      if (path.startsWith('/') || path.split('/').includes('..')) throw new EngineError('PATH_OUTSIDE_ROOT', { path });
      if (path.split('/').pop() === '.env') throw new EngineError('PATH_DENIED', { path, reason: 'it is a secrets file' });
      const exists = Object.prototype.hasOwnProperty.call(files, path);
      if (!exists && !options.allowMissing) throw new EngineError('FILE_NOT_FOUND', { path });
      return { rel: path, exists };
    },
    read(rel) {
      return files[rel]!;
    },
  };
}
