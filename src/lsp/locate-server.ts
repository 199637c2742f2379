import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from 'node:fs';
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

/** How a located server is started: the command, its arguments, and how its memory is capped. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  /** `node-heap`: a Node script run by this Node with `--max-old-space-size` (pyright, typescript-language-server); `none`: no cap scry can set. */
  readonly memoryCap: 'node-heap' | 'none';
}

/** True when the file is a Node script: a `.js`/`.mjs`/`.cjs` file, or a `#!` line naming node. */
export function isNodeScript(executable: string): boolean {
  let real: string;
  try {
    real = realpathSync(executable);
  } catch {
    return false;
  }
  if (/\.(?:c|m)?js$/.test(real)) return true;
  try {
    const fd = openSync(real, 'r');
    try {
      const head = Buffer.alloc(128);
      const n = readSync(fd, head, 0, head.length, 0);
      const first = head.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
      return /^#!.*\bnode\b/.test(first);
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/**
 * The command line of a located server. A Node script is run by this Node (`nodePath`) with its
 * heap capped at `maxMemoryMb` (V8's old space; pyright drops its caches near the limit rather
 * than grow); anything else runs as it is, uncapped (rust-analyzer and clangd take no limit;
 * gopls and jdtls honour GOMEMLIMIT and JDK_JAVA_OPTIONS from the environment they inherit).
 */
export function launchOf(executable: string, args: readonly string[], maxMemoryMb: number, nodePath: string): Launch {
  if (!isNodeScript(executable)) return { command: executable, args, memoryCap: 'none' };
  return { command: nodePath, args: [`--max-old-space-size=${Math.floor(maxMemoryMb)}`, realpathSync(executable), ...args], memoryCap: 'node-heap' };
}
