import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

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
