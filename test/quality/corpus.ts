/**
 * The quality corpus: directories copied at test time from this repo's own lockfile-pinned
 * node_modules, so no third-party code is committed and the corpus changes only when the
 * lockfile does. Every source lands under a top-level folder named after its package, so the
 * expected paths in queries.json read `zod/src/v4/core/errors.ts`.
 */
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One package's contribution: paths relative to the package root, copied to `<pkg>/<path>`. */
export interface CorpusPackage {
  readonly name: string;
  readonly paths: readonly string[];
}

/**
 * The pinned packages and what each contributes. better-sqlite3 publishes no docs/ folder, so its
 * README stands in for its API docs; every README listed is indexed as markdown documentation.
 * better-sqlite3 and node-gyp are dev dependencies for this corpus only: scry runs neither
 * (better-sqlite3's install script is off in package.json `allowScripts`, so nothing compiles).
 */
export const CORPUS_PACKAGES: readonly CorpusPackage[] = [
  { name: 'dependency-cruiser', paths: ['src', 'README.md'] },
  { name: 'zod', paths: ['src/v4', 'README.md'] },
  { name: 'node-gyp', paths: ['gyp/pylib', 'lib', 'README.md'] },
  { name: 'better-sqlite3', paths: ['lib', 'README.md'] },
  { name: 'commander', paths: ['lib', 'Readme.md'] },
  { name: 'picomatch', paths: ['lib', 'README.md'] },
  { name: 'enhanced-resolve', paths: ['lib', 'README.md'] },
];

/** Name and version of every corpus package, e.g. `zod@4.6.7`; written into stats.txt. */
export function corpusVersions(): string[] {
  return CORPUS_PACKAGES.map((p) => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', p.name, 'package.json'), 'utf8')) as { version: string };
    return `${p.name}@${manifest.version}`;
  });
}

/**
 * Copies the corpus into `target` (which must exist): by default the golden set's packages; the
 * paraphrase set (test/paraphrase) passes its own smaller list. Throws when a pinned path is missing.
 */
export function buildCorpus(target: string, packages: readonly CorpusPackage[] = CORPUS_PACKAGES): void {
  for (const pkg of packages) {
    for (const rel of pkg.paths) {
      const from = join(REPO_ROOT, 'node_modules', pkg.name, rel);
      if (!existsSync(from)) throw new Error(`quality corpus: ${pkg.name}/${rel} is missing; run npm ci`);
      cpSync(from, join(target, pkg.name, rel), { recursive: true });
    }
  }
}
