/**
 * TypeScript sources out of installed npm packages' source maps (issue 18, model v5's data).
 *
 *   npx tsx train/extract-maps.ts --npm /work/train-data/npm/node_modules[,DIR2] --out /work/train-data/maps/node_modules \
 *     --exclude-names train/exclude-names.txt
 *
 * Many packages ship compiled JavaScript with `*.js.map` files whose `sourcesContent` holds the
 * original `.ts`/`.tsx`/`.mts` sources. For every package with a permissive licence that is not
 * held out, each such source (never a `.d.ts`, never one whose path passes through `node_modules`:
 * that is other packages' code under other licences, maybe a held-out project bundled in, and never
 * one whose path names a held-out project) is written to `<out>/<package name>/<sanitised path>`
 * with a `package.json` carrying the package's name, version `<version>+maps` and licence. The
 * harvester then reads `<out>` as one more npm tree. Nothing is ever written outside `<out>`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { isHeldOut, permissiveLicence, safeList } from './sources.js';

/** Why a map source is not written (counted in the summary). */
export type Refusal = 'extension' | 'declaration' | 'node_modules' | 'held-out' | 'unsafe-path' | 'no-content';

const TS_SOURCE = /\.(ts|tsx|mts)$/i;
const DECLARATION = /\.d\.[cm]?ts$/i;
const MAP_FILE = /\.[cm]?js\.map$/;
const MAX_MAP_BYTES = 64 << 20;
const MAX_SOURCE_BYTES = 1_000_000;

/**
 * The path under the package's scratch directory for one `sources` entry of a map, or the reason it
 * is refused: the scheme (`webpack://`, `file:///`, …) and every `.`/`..`/empty segment are dropped,
 * other characters outside [A-Za-z0-9._@+-] become `_`, and a segment starting with a dot (a hidden
 * directory the harvester would skip anyway) refuses the source. `node_modules` anywhere in the
 * original path, or a held-out project's name as any path piece, refuses it too.
 */
export function sanitiseSourcePath(source: string, sourceRoot: string, extraNames: ReadonlySet<string>): { path: string } | { refused: Refusal } {
  const full = sourceRoot && !/^[a-z][a-z0-9+.-]*:/i.test(source) ? `${sourceRoot.replace(/\/*$/, '')}/${source}` : source;
  const noQuery = full.replace(/[?#].*$/, '');
  if (!TS_SOURCE.test(noQuery)) return { refused: 'extension' };
  if (DECLARATION.test(noQuery)) return { refused: 'declaration' };
  const raw = noQuery.replace(/^[a-z][a-z0-9+.-]*:(\/\/)?/i, '').split(/[\\/]+/);
  if (raw.some((s) => s.toLowerCase() === 'node_modules')) return { refused: 'node_modules' };
  const segments = raw.filter((s) => s !== '' && s !== '.' && s !== '..').map((s) => s.replace(/[^A-Za-z0-9._@+-]/g, '_'));
  if (segments.length === 0 || segments.some((s) => s.startsWith('.'))) return { refused: 'unsafe-path' };
  const path = segments.join('/');
  if (isHeldOut(full, extraNames) || isHeldOut(path, extraNames)) return { refused: 'held-out' };
  return { path };
}

/** `rel` under `root`, or undefined when it would land outside (the last guard before any write). */
export function insideRoot(root: string, rel: string): string | undefined {
  const base = resolve(root);
  const target = resolve(base, rel);
  return target.startsWith(base + sep) ? target : undefined;
}

interface PackageInfo {
  readonly name: string;
  readonly version: string;
  readonly licence: string;
  readonly dir: string;
}

/** Every package directory under `nodeModules` (scoped and nested) with its package.json facts. */
function listPackages(nodeModules: string, out: PackageInfo[] = []): PackageInfo[] {
  for (const entry of safeList(nodeModules)) {
    if (entry.startsWith('.')) continue;
    const dir = join(nodeModules, entry);
    if (entry.startsWith('@')) {
      listPackages(dir, out);
      continue;
    }
    try {
      const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string; license?: unknown };
      const licence = typeof meta.license === 'string' ? meta.license : ((meta.license as { type?: string } | undefined)?.type ?? '');
      if (meta.name) out.push({ name: meta.name, version: meta.version ?? '0', licence, dir });
    } catch {
      /* no or unreadable package.json */
    }
    if (existsSync(join(dir, 'node_modules'))) listPackages(join(dir, 'node_modules'), out);
  }
  return out;
}

/** The package's own map files (nested node_modules are packages of their own). */
function mapFiles(dir: string, out: string[] = [], depth = 0): string[] {
  if (depth > 12) return out;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')) mapFiles(p, out, depth + 1);
    else if (e.isFile() && MAP_FILE.test(e.name)) out.push(p);
  }
  return out;
}

interface RawMap {
  readonly sources?: unknown;
  readonly sourcesContent?: unknown;
  readonly sourceRoot?: unknown;
}

function readMap(file: string): RawMap | undefined {
  try {
    if (statSync(file).size > MAX_MAP_BYTES) return undefined;
    const map = JSON.parse(readFileSync(file, 'utf8')) as RawMap;
    return Array.isArray(map.sources) && Array.isArray(map.sourcesContent) ? map : undefined;
  } catch {
    return undefined;
  }
}

export interface ExtractSummary {
  packages: number;
  files: number;
  bytes: number;
  maps: number;
  skippedPackages: { licence: number; heldOut: number; duplicate: number };
  refused: Record<Refusal, number>;
  perPackage: { name: string; version: string; licence: string; files: number }[];
}

/** Writes one package's map sources under `outRoot`; returns how many files it wrote. */
function extractPackage(pkg: PackageInfo, licence: string, outRoot: string, extraNames: ReadonlySet<string>, sum: ExtractSummary): number {
  const pkgDir = insideRoot(outRoot, pkg.name);
  if (!pkgDir) return 0;
  const written = new Set<string>();
  for (const file of mapFiles(pkg.dir)) {
    const map = readMap(file);
    if (!map) continue;
    sum.maps++;
    const sources = map.sources as unknown[];
    const contents = map.sourcesContent as unknown[];
    const root = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
    sources.forEach((source, i) => {
      const content = contents[i];
      if (typeof source !== 'string') return;
      const verdict = sanitiseSourcePath(source, root, extraNames);
      if ('refused' in verdict) return void sum.refused[verdict.refused]++;
      if (typeof content !== 'string' || content.length === 0 || content.length > MAX_SOURCE_BYTES) return void sum.refused['no-content']++;
      const target = insideRoot(pkgDir, verdict.path);
      if (!target) return void sum.refused['unsafe-path']++;
      if (written.has(target) || target === join(pkgDir, 'package.json')) return;
      written.add(target);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
      sum.bytes += Buffer.byteLength(content);
    });
  }
  if (written.size > 0) {
    writeFileSync(join(pkgDir, 'package.json'), `${JSON.stringify({ name: pkg.name, version: `${pkg.version}+maps`, license: licence, description: 'TypeScript sources from the source maps of the installed package (train/extract-maps.ts)' }, null, 1)}\n`);
  }
  return written.size;
}

/** Extracts every permissive, non-held-out package of `trees` into `outRoot` (first version of a name wins). */
export function extractMaps(trees: readonly string[], outRoot: string, extraNames: ReadonlySet<string>): ExtractSummary {
  const sum: ExtractSummary = {
    packages: 0, files: 0, bytes: 0, maps: 0, skippedPackages: { licence: 0, heldOut: 0, duplicate: 0 },
    refused: { extension: 0, declaration: 0, node_modules: 0, 'held-out': 0, 'unsafe-path': 0, 'no-content': 0 }, perPackage: [],
  };
  const seen = new Set<string>();
  for (const pkg of trees.flatMap((t) => listPackages(t))) {
    if (isHeldOut(pkg.name, extraNames)) { sum.skippedPackages.heldOut++; continue; }
    const licence = permissiveLicence(pkg.licence);
    if (!licence) { sum.skippedPackages.licence++; continue; }
    if (seen.has(pkg.name)) { sum.skippedPackages.duplicate++; continue; }
    seen.add(pkg.name);
    const files = extractPackage(pkg, licence, outRoot, extraNames, sum);
    if (files === 0) continue;
    sum.packages++;
    sum.files += files;
    sum.perPackage.push({ name: pkg.name, version: `${pkg.version}+maps`, licence, files });
  }
  return sum;
}

function readNames(path: string | undefined): Set<string> {
  if (!path || !existsSync(path)) return new Set();
  return new Set(readFileSync(path, 'utf8').split('\n').map((l) => l.trim().toLowerCase()).filter((l) => l !== '' && !l.startsWith('#')));
}

function main(): void {
  const { values } = parseArgs({ options: { npm: { type: 'string' }, out: { type: 'string' }, 'exclude-names': { type: 'string' } } });
  const trees = (values.npm ?? '').split(',').filter(Boolean);
  const out = resolve(values.out ?? '/work/train-data/maps/node_modules');
  if (trees.length === 0) throw new Error('--npm DIR[,DIR2] is required');
  mkdirSync(out, { recursive: true });
  const sum = extractMaps(trees, out, readNames(values['exclude-names']));
  writeFileSync(join(dirname(out), 'extract-summary.json'), `${JSON.stringify(sum, null, 1)}\n`);
  const { perPackage: _omit, ...totals } = sum;
  process.stderr.write(`${JSON.stringify(totals)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
