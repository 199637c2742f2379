/**
 * The pinned benchmark corpus: a set of large npm packages installed into a cache directory.
 *
 * scry's built-in denylist skips `node_modules/`, `dist/` and `build/`, so the index root is the
 * `node_modules` directory itself and what gets indexed is the packages' shipped sources
 * (`src/`, `lib/`, `esm/`, `dist-es/`, type declarations, docs, JSON). Only the top-level
 * versions are pinned; transitive dependencies float with the registry, so every run records a
 * fingerprint of the installed tree (`treeHash`) to tell when two runs saw different corpora.
 *
 * Module: `ensureCorpus()` installs (once) and returns the root. CLI:
 *   npx tsx bench/corpus.ts            install if needed, dry-run the index, print the composition
 *   npx tsx bench/corpus.ts --reinstall
 * Cache directory: `bench/.corpus/` or `$SCRY_BENCH_CORPUS`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../src/index.js';
import { environment, parseArgs, REPO_ROOT, writeResult } from './results.js';
import { fmtMB, fmtMs, timeAsync } from './stats.js';

/**
 * Top-level packages and exact versions. Chosen so that, after scry's denylist, >= 30,000 files
 * are indexed: a mix of TypeScript sources, large generated SDKs, JS libraries, .d.ts, JSON, docs.
 */
export const CORPUS_PACKAGES: Readonly<Record<string, string>> = {
  typescript: '5.9.3',
  'aws-sdk': '2.1693.0',
  rxjs: '7.8.2',
  three: '0.187.0',
  'monaco-editor': '0.57.0',
  '@angular/core': '22.2.6',
  '@angular/compiler': '22.2.6',
  webpack: '5.112.2',
  eslint: '10.15.0',
  effect: '4.1.0',
  firebase: '12.19.0',
  'date-fns': '4.4.0',
  lodash: '4.18.1',
  'core-js': '3.51.0',
  '@mui/material': '9.5.0',
  '@aws-sdk/client-s3': '3.1169.0',
  '@aws-sdk/client-ec2': '3.1169.0',
  '@babel/preset-env': '8.0.7',
  svelte: '5.57.3',
};

/** Files the corpus must yield for the numbers to mean "large repository". */
export const MIN_CORPUS_FILES = 30_000;

const MARKER = 'scry-corpus.json';

export interface Corpus {
  /** The cache directory (holds `node_modules/` and the marker). */
  readonly dir: string;
  /** The index root: `<dir>/node_modules`, real path. */
  readonly root: string;
  readonly packages: Readonly<Record<string, string>>;
  /** Packages present in the installed tree (top-level and transitive). */
  readonly installedPackages: number;
  /** sha256 (12 hex) of the sorted `name@version` list of the installed tree. */
  readonly treeHash: string;
}

/** `$SCRY_BENCH_CORPUS` or `bench/.corpus/`. */
export function corpusDir(): string {
  return resolve(process.env.SCRY_BENCH_CORPUS ?? join(REPO_ROOT, 'bench', '.corpus'));
}

function installedTree(nodeModules: string): string[] {
  const out: string[] = [];
  const add = (dir: string): void => {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name && pkg.version) out.push(`${pkg.name}@${pkg.version}`);
    } catch {
      // not a package
    }
  };
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const sub of readdirSync(join(nodeModules, name))) add(join(nodeModules, name, sub));
    else add(join(nodeModules, name));
  }
  return out.sort();
}

function markerMatches(dir: string): boolean {
  try {
    const marker = JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as { packages?: Record<string, string> };
    return JSON.stringify(marker.packages) === JSON.stringify(CORPUS_PACKAGES) && existsSync(join(dir, 'node_modules'));
  } catch {
    return false;
  }
}

/** Installs the pinned packages unless the cache already holds exactly them. Synchronous. */
export function ensureCorpus(options: { dir?: string; reinstall?: boolean; log?: (line: string) => void } = {}): Corpus {
  const dir = options.dir ?? corpusDir();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (options.reinstall || !markerMatches(dir)) {
    log(`corpus: installing ${Object.keys(CORPUS_PACKAGES).length} packages into ${dir} (a few minutes)...`);
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    rmSync(join(dir, MARKER), { force: true });
    mkdirSync(dir, { recursive: true });
    const specs = Object.entries(CORPUS_PACKAGES).map(([name, version]) => `${name}@${version}`);
    const args = ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', dir, ...specs];
    const npm = spawnSync('npm', args, { stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
    if (npm.status !== 0) throw new Error(`corpus: npm install failed (exit ${npm.status ?? npm.signal})`);
    writeFileSync(join(dir, MARKER), `${JSON.stringify({ packages: CORPUS_PACKAGES, installedAt: new Date().toISOString() }, null, 2)}\n`);
  }
  const root = realpathSync(join(dir, 'node_modules'));
  const tree = installedTree(root);
  const treeHash = createHash('sha256').update(tree.join('\n')).digest('hex').slice(0, 12);
  return { dir, root, packages: CORPUS_PACKAGES, installedPackages: tree.length, treeHash };
}

/**
 * Any directory as the index root instead of the pinned corpus (`--root DIR`), e.g. a few of its
 * packages copied elsewhere so that a CPU profile takes minutes, not a quarter of an hour. Nothing
 * is installed; `packages` is empty and `treeHash` fingerprints the packages found under it.
 */
export function corpusAt(dir: string): Corpus {
  const root = realpathSync(dir);
  const tree = installedTree(root);
  const treeHash = createHash('sha256').update(tree.join('\n')).digest('hex').slice(0, 12);
  return { dir: root, root, packages: {}, installedPackages: tree.length, treeHash };
}

async function main(): Promise<void> {
  const { flags } = parseArgs(process.argv.slice(2));
  const env = environment();
  const corpus = ensureCorpus({ reinstall: flags.has('reinstall') });
  // The db path is never created by preview(); it only has to be somewhere harmless.
  const engine = await createEngine({ root: corpus.root, db: join(corpus.dir, 'preview-unused.db') });
  const { ms, value: preview } = await timeAsync(() => engine.preview());
  engine.close();
  const languages = Object.entries(preview.languages).sort((a, b) => b[1] - a[1]);
  console.log(`corpus root   ${corpus.root}`);
  console.log(`packages      ${Object.entries(corpus.packages).map(([n, v]) => `${n}@${v}`).join(' ')}`);
  console.log(`installed     ${corpus.installedPackages} packages, tree ${corpus.treeHash}`);
  console.log(`indexable     ${preview.files} files, ${fmtMB(preview.bytes)} (dry run took ${fmtMs(ms)})`);
  console.log(`languages     ${languages.slice(0, 10).map(([l, n]) => `${l} ${n}`).join(', ')}`);
  console.log(`skipped files ${JSON.stringify(preview.skippedFiles)}  dirs ${JSON.stringify(preview.skippedDirectories)}`);
  console.log('top dirs      ' + preview.topDirectories.slice(0, 8).map((d) => `${d.dir} ${d.files}/${fmtMB(d.bytes)}`).join(', '));
  const file = writeResult('corpus', { env, corpus, preview: { ...preview, examples: undefined }, previewMs: Math.round(ms) });
  console.log(`wrote ${file}`);
  if (preview.files < MIN_CORPUS_FILES) {
    console.error(`corpus: only ${preview.files} indexable files (< ${MIN_CORPUS_FILES}); add packages to CORPUS_PACKAGES`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
