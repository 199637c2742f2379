/**
 * Where the training code comes from (issue 17): installed npm packages and Debian packages that
 * carry source, each with its licence, minus the projects held out for measurement. Run by
 * train/harvest.ts; nothing here is shipped.
 */
import { execFileSync } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface SourcePackage {
  readonly ecosystem: 'npm' | 'debian' | 'cargo';
  readonly name: string;
  readonly version: string;
  /** Normalised SPDX-ish id, or the raw text when not permissive. */
  readonly licence: string;
  readonly permissive: boolean;
  /** Absolute file paths of this package's source files. */
  readonly files: readonly string[];
  /** Root the file paths are made relative to. */
  readonly root: string;
}

/**
 * Held out for measurement, never trained on: the projects, the development benchmark's
 * 12 repositories, and what the eval engineer lists. Matched against every name token of a package
 * and every path segment of a file.
 */
export const HELD_OUT_NAMES = [
  'sympy', 'pytest', '_pytest', 'sphinx', 'astropy', 'requests', 'pylint', 'xarray', 'seaborn', 'flask', 'django',
  'scikit-learn', 'sklearn', 'matplotlib', 'mpl_toolkits', 'typeorm', 'eslint', 'espree', 'rxjs',
  'ripgrep', 'zod', 'express', 'hono', 'jsoup', 'fzf', 'mocha', 'click', 'black', 'fd-find', 'cobra', 'javapoet',
  // ripgrep's own crates (the repository holds them), pytest's plugin host.
  'globset', 'grep-searcher', 'grep-matcher', 'grep-regex', 'grep-printer', 'grep-cli', 'ignore', 'pluggy',
];

const PERMISSIVE: readonly [RegExp, string][] = [
  [/^(mit|expat|mit-0|x11)$/i, 'MIT'],
  [/^(0?bsd|bsd-[234]-clause.*|bsd-like|bsd)$/i, 'BSD'],
  [/^apache(-2(\.0)?)?( license)?$/i, 'Apache-2.0'],
  [/^isc$/i, 'ISC'],
  [/^(psf.*|python(-2\.0)?|python-software-foundation)$/i, 'PSF'],
  [/^mpl-2\.0$/i, 'MPL-2.0'],
];

/** The licence id if `expr` is permissive (for `A OR B`, any side; for `A AND B`, every side). */
export function permissiveLicence(expr: string): string | undefined {
  const clean = expr.replace(/[()]/g, ' ').trim();
  if (clean === '') return undefined;
  if (/\s+and\s+/i.test(clean)) {
    const parts = clean.split(/\s+and\s+/i).map(permissiveLicence);
    return parts.every((p) => p !== undefined) ? parts.join(' AND ') : undefined;
  }
  for (const alt of clean.split(/\s+or\s+|\s*\/\s*|\s*,\s*/i)) {
    const t = alt.trim().replace(/\+$/, '');
    for (const [re, id] of PERMISSIVE) if (re.test(t)) return id;
  }
  return undefined;
}

/** True when a package name or any path segment names a held-out project. */
export function isHeldOut(nameOrPath: string, extra: ReadonlySet<string>): boolean {
  const lower = nameOrPath.toLowerCase();
  const pieces = new Set(lower.split(/[/@]+/).filter(Boolean));
  for (const seg of [...pieces]) for (const p of seg.split(/[-_.]+/)) pieces.add(p);
  for (const n of HELD_OUT_NAMES) if (pieces.has(n)) return true;
  for (const n of extra) if (pieces.has(n)) return true;
  return false;
}

const CODE_EXT = /\.(js|mjs|cjs|ts|mts|cts|tsx|py|go|rs)$/;
const SKIP_FILE = /\.d\.[cm]?ts$|\.min\.js$|(^|\/)(tests?|__tests__|testdata|spec|fixtures?|examples?|benchmarks?)\/|[._-](test|spec)\.[a-z]+$|_test\.go$/;

function walk(dir: string, out: string[], depth = 0): void {
  if (depth > 12) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      walk(p, out, depth + 1);
    } else if (e.isFile() && CODE_EXT.test(e.name) && !SKIP_FILE.test(p)) {
      try {
        if (statSync(p).size <= 1_000_000) out.push(p);
      } catch {
        /* vanished */
      }
    }
  }
}

/** Every package under `nodeModules` (scoped and nested), with its licence from package.json. */
export function npmPackages(nodeModules: string): SourcePackage[] {
  const out: SourcePackage[] = [];
  const visit = (dir: string): void => {
    for (const name of safeList(dir)) {
      if (name.startsWith('.')) continue;
      const p = join(dir, name);
      if (name.startsWith('@')) {
        visit(p);
        continue;
      }
      const pj = join(p, 'package.json');
      if (!existsSync(pj)) continue;
      try {
        const meta = JSON.parse(readFileSync(pj, 'utf8')) as { name?: string; version?: string; license?: unknown; licenses?: unknown };
        const raw = typeof meta.license === 'string' ? meta.license : ((meta.license as { type?: string } | undefined)?.type ?? '');
        const licence = permissiveLicence(raw);
        const files: string[] = [];
        walk(p, files);
        out.push({ ecosystem: 'npm', name: meta.name ?? name, version: meta.version ?? '0', licence: licence ?? (raw || 'unknown'), permissive: licence !== undefined, files, root: p });
      } catch {
        /* unreadable package.json */
      }
      if (existsSync(join(p, 'node_modules'))) visit(join(p, 'node_modules'));
    }
  };
  visit(nodeModules);
  return out;
}

/** A directory's entries, sorted; none when it cannot be read. */
export function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Installed Debian packages named python3-* / golang-*-dev, their source files from `dpkg -L`, licence from the copyright file. */
export function debianPackages(): SourcePackage[] {
  const listing = execFileSync('dpkg-query', ['-W', '-f', '${Package} ${Version}\n'], { encoding: 'utf8' });
  const out: SourcePackage[] = [];
  for (const line of listing.split('\n')) {
    const [name, version] = line.split(' ');
    if (!name || !version || !/^(python3-|golang-.*-dev$)/.test(name)) continue;
    const files = execFileSync('dpkg', ['-L', name], { encoding: 'utf8', maxBuffer: 64 << 20 })
      .split('\n')
      .filter((f) => (f.startsWith('/usr/lib/python3/dist-packages/') || f.startsWith('/usr/share/gocode/src/')) && CODE_EXT.test(f) && !SKIP_FILE.test(f))
      .filter((f) => existsSync(f) && statSync(f).isFile() && statSync(f).size <= 1_000_000);
    if (files.length === 0) continue;
    const raw = debianLicence(name);
    const licence = permissiveLicence(raw);
    const root = name.startsWith('golang') ? '/usr/share/gocode/src' : '/usr/lib/python3/dist-packages';
    out.push({ ecosystem: 'debian', name, version, licence: licence ?? (raw || 'unknown'), permissive: licence !== undefined, files, root });
  }
  return out;
}

/** The `License:` of the `Files: *` stanza of /usr/share/doc/<pkg>/copyright (machine-readable format). */
function debianLicence(pkg: string): string {
  const path = `/usr/share/doc/${pkg}/copyright`;
  if (!existsSync(path)) return '';
  const text = readFileSync(path, 'utf8');
  const stanza = /^Files:\s*\*\s*$([\s\S]*?)(?:^\s*$|(?![\s\S]))/m.exec(text)?.[1] ?? '';
  return /^License:\s*(.+)$/m.exec(stanza)?.[1]?.trim() ?? '';
}

/** Crates under /usr/share/cargo/registry, licence from Cargo.toml. */
export function cargoCrates(registry = '/usr/share/cargo/registry'): SourcePackage[] {
  const out: SourcePackage[] = [];
  for (const dir of safeList(registry)) {
    const root = join(registry, dir);
    const toml = join(root, 'Cargo.toml');
    if (!existsSync(toml)) continue;
    const text = readFileSync(toml, 'utf8');
    const pkg = /\[package\]([\s\S]*?)(?:\n\[|$)/.exec(text)?.[1] ?? '';
    const name = /^name\s*=\s*"([^"]+)"/m.exec(pkg)?.[1] ?? dir;
    const version = /^version\s*=\s*"([^"]+)"/m.exec(pkg)?.[1] ?? '0';
    const raw = /^license\s*=\s*"([^"]+)"/m.exec(pkg)?.[1] ?? '';
    const licence = permissiveLicence(raw);
    const files: string[] = [];
    walk(root, files);
    out.push({ ecosystem: 'cargo', name, version, licence: licence ?? (raw || 'unknown'), permissive: licence !== undefined, files: files.filter((f) => f.endsWith('.rs')), root });
  }
  return out;
}
