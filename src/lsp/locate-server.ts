import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * Where an executable is: an absolute path as it is, else the first `dir/name` that is an
 * executable file, in `dirs` order (the project's node_modules/.bin, scry's, then PATH).
 */
export function locateExecutable(name: string, dirs: readonly string[]): string | undefined {
  if (isAbsolute(name)) return isExecutable(name) ? name : undefined;
  // a bare name only: `../x` or `a/b` would be a path the config did not spell out as absolute
  if (name.includes('/') || name.includes('\\')) return undefined;
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether an executable found for a language server may run for a project at `root`: never a file
 * of the project itself (indexed content is never executed), so its real path (links resolved) must
 * be outside the root or inside the root's `node_modules/` (installed packages, as `npm run` uses).
 */
export function mayExecute(executable: string, root: string): boolean {
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(executable);
    realRoot = realpathSync(root);
  } catch {
    return false;
  }
  const rel = relative(realRoot, real);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  return !inside || rel.split(sep)[0] === 'node_modules';
}
