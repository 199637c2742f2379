import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The file URI of a path relative to the root. */
export function uriOf(root: string, rel: string): string {
  return pathToFileURL(resolve(root, rel)).href;
}

/**
 * The root-relative path of a URI a server returned, or undefined when it is not a file inside
 * the root once links are resolved (a library's .d.ts, the standard library, `../elsewhere`):
 * such locations are dropped, the same guard as read_file.
 */
export function pathInRoot(root: string, uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  let abs: string;
  try {
    abs = realpathSync(fileURLToPath(uri));
  } catch {
    return undefined;
  }
  const rel = relative(root, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const posix = rel.split(sep).join('/');
  return posix.split('/').includes('node_modules') ? undefined : posix;
}
