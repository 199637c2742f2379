/**
 * The script bundle and its code cache (issue 19): what `bin/scry.js` runs for a command on a
 * runtime without `module.enableCompileCache` (Node 20). V8 caches compiled code only for
 * scripts there (`vm.Script`'s `cachedData`), not for ES modules, so every start parsed and
 * compiled the ~400 KB of JavaScript a search loads. `npm run build` also writes the CLI as one
 * CommonJS file (dist/cli/scry.cjs, scripts/bundle-cli.mjs); it is run here as a `vm.Script`
 * with the code V8 compiled for it on an earlier run of the same command, and on a run that had
 * no usable cache, the code compiled by then is saved at exit for the next.
 *
 * The cache is a file per command in a directory of the OS temp dir that only this user can
 * write (checked before every use: a directory, not a link, owned by this user, not writable by
 * group or others; otherwise nothing is read or written). A cache file is used only when its
 * checksum (crc32 of everything after it) holds and it names the very bundle file it was made
 * for (inode, size, modification and change times to the nanosecond, runtime version and
 * architecture); V8 checks its own version and flags again and may reject it. A damaged, stale
 * or rejected cache is never an error: the script compiles from source and the cache is rewritten.
 * The first few hits save it again with what they compiled besides (`GENERATIONS`); later hits
 * write nothing.
 */
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, type BigIntStats } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

/** How the code of this run was obtained: from a cache V8 accepted, or compiled from source (and why). */
export type ScriptCacheOutcome = 'hit' | 'missing' | 'damaged' | 'stale' | 'rejected' | 'off';

export interface ScriptBundle {
  /** The bundle's `module.exports` (the CLI's `main`). */
  readonly exports: Record<string, unknown>;
  readonly cache: ScriptCacheOutcome;
  /** Writes the code compiled so far as the cache of this command (not after a hit on a cache of the last generation, nor with the cache off). Never throws. */
  save(): void;
}

export interface ScriptBundleOptions {
  /** The CommonJS bundle (dist/cli/scry.cjs). */
  readonly file: string;
  /** Where cache files live; undefined: no cache. */
  readonly cacheDir: string | undefined;
  /** The command (`search`): each command has its own cache, holding the code that command ran. */
  readonly command: string;
}

const MAGIC = Buffer.from('scrycc02');
/** magic, crc32 (of what follows), identity length and generation (uint32 LE each), identity, V8's data. */
const HEAD = MAGIC.length + 12;
/**
 * A cache is saved again by its first hits (up to this generation): the code a run compiled on
 * top of what the cache held is saved with it, so a command's cache comes to hold the paths of
 * its first few runs (an identifier search first, then a blended question), not only the first.
 */
const GENERATIONS = 3;

/** The default cache directory: per user, in the OS temp dir (as Node 22's own compile cache). */
export function scriptCacheDir(): string {
  return join(tmpdir(), `scry-script-cache-${process.getuid?.() ?? 'user'}`);
}

/** Loads and runs the bundle. Throws only what reading or running the bundle itself throws. */
export function loadScriptBundle(options: ScriptBundleOptions): ScriptBundle {
  const fd = openSync(options.file, 'r');
  let source: string;
  let stat: BigIntStats;
  try {
    stat = fstatSync(fd, { bigint: true });
    source = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  const identity = `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${process.version}:${process.arch}:${options.file}`;
  const dir = options.cacheDir !== undefined && ownDirectory(options.cacheDir) ? options.cacheDir : undefined;
  // one file per command, bundle and runtime: Node 20 and 22 running the same checkout do not overwrite each other's
  const cacheFile = dir !== undefined ? join(dir, `${cacheName(options.command)}-${(crc32(`${options.file}:${process.version}:${process.arch}`) >>> 0).toString(16)}.bin`) : undefined;
  const found: CacheRead = cacheFile !== undefined ? readCache(cacheFile, identity) : { outcome: 'off' };
  // one line: the bundle's line numbers (stack traces) are the file's
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __scryImport, __scryBundleUrl) {${source}\n})`, {
    filename: options.file,
    ...(found.data ? { cachedData: found.data } : {}),
  });
  const cache: ScriptCacheOutcome = found.data ? (script.cachedDataRejected === true ? 'rejected' : 'hit') : found.outcome;
  const generation = cache === 'hit' && found.outcome === 'hit' ? found.generation + 1 : 0;
  const module = { exports: {} as Record<string, unknown> };
  // the bundle's import() of external packages (scripts/bundle-cli.mjs): this module's, which V8 keeps, resolving from the same directory
  const load = (specifier: string): Promise<unknown> => import(specifier);
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(options.file), module, options.file, dirname(options.file), load, pathToFileURL(options.file).href);
  const save = (): void => {
    if (cacheFile === undefined || generation > GENERATIONS) return;
    writeCache(cacheFile, identity, generation, script.createCachedData());
  };
  return { exports: module.exports, cache, save };
}

/** A cache file name for a command: its own name when plain, else one shared name. */
function cacheName(command: string): string {
  return /^[a-z][a-z0-9-]{0,40}$/.test(command) ? command : 'other';
}

/** True when `dir` exists or was made, is a directory (not a link), is this user's and no one else can write in it. */
function ownDirectory(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

type CacheRead = { outcome: 'missing' | 'damaged' | 'stale' | 'off'; data?: undefined } | { outcome: 'hit'; data: Buffer; generation: number };

function readCache(file: string, identity: string): CacheRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { outcome: 'missing' };
  }
  if (bytes.length < HEAD || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { outcome: 'damaged' };
  if ((crc32(bytes.subarray(MAGIC.length + 4)) >>> 0) !== bytes.readUInt32LE(MAGIC.length)) return { outcome: 'damaged' };
  const idBytes = bytes.readUInt32LE(MAGIC.length + 4);
  if (HEAD + idBytes > bytes.length) return { outcome: 'damaged' };
  if (bytes.toString('utf8', HEAD, HEAD + idBytes) !== identity) return { outcome: 'stale' };
  return { outcome: 'hit', data: bytes.subarray(HEAD + idBytes), generation: bytes.readUInt32LE(MAGIC.length + 8) };
}

/** Writes the cache file whole (a temporary file renamed over it); a failure leaves no cache, never an error. */
function writeCache(file: string, identity: string, generation: number, data: Buffer): void {
  const id = Buffer.from(identity, 'utf8');
  const body = Buffer.alloc(HEAD + id.length + data.length);
  MAGIC.copy(body, 0);
  body.writeUInt32LE(id.length, MAGIC.length + 4);
  body.writeUInt32LE(generation, MAGIC.length + 8);
  id.copy(body, HEAD);
  data.copy(body, HEAD + id.length);
  body.writeUInt32LE(crc32(body.subarray(MAGIC.length + 4)) >>> 0, MAGIC.length);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, body, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // a full or read-only temp dir: the next run compiles from source again
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was written
    }
  }
}
