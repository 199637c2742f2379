/**
 * Harvests (description, code unit) pairs for the builtin embedding model (issue 17).
 *
 *   npx tsx train/harvest.ts --npm /work/train-data/npm/node_modules[,DIR2] --out /work/train-data
 *
 * Reads installed npm packages (install them first: train/README.md), Debian python3-* and
 * golang-*-dev packages, and crates under /usr/share/cargo/registry; keeps permissive licences
 * only; skips every held-out project by name, path segment and file hash (`--exclude-names FILE`,
 * `--exclude-hashes FILE`: one per line); cuts files with scry's own parser; writes
 * `pairs.jsonl` (the corpus, never committed) and `data-manifest.json` (committed as
 * train/data-manifest.json).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { detectLanguage } from '../src/discover/language.js';
import { loadGrammars } from '../src/parse/grammars.js';
import type { FileParser } from '../src/parse/chunker.js';
import { createFileParser } from '../src/parse/chunker.js';
import type { Pair } from './pairs.js';
import { pairOf } from './pairs.js';
import type { SourcePackage } from './sources.js';
import { cargoCrates, debianPackages, isHeldOut, npmPackages } from './sources.js';

const MAX_FILES_PER_PACKAGE = 1500;
/** Generated API clients: their doc comments are templates (`X API operation for Y`), not descriptions. */
const GENERATED_PACKAGES = /aws-sdk|google-api|googleapis|genproto|kubernetes|k8s|azure|botocore|boto3|protobuf/;
const MAX_PAIRS_PER_PACKAGE = 2500;
/** The same description more often than this is boilerplate (`Creates a new instance.`). */
const MAX_SAME_DESCRIPTION = 3;

export interface PairRecord extends Pair {
  readonly pkg: string;
  readonly ecosystem: string;
  readonly language: string;
  readonly path: string;
}

export interface PackageStats {
  name: string;
  ecosystem: string;
  version: string;
  licence: string;
  files: number;
  pairs: number;
}

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

function readLines(path: string | undefined): Set<string> {
  if (!path || !existsSync(path)) return new Set();
  return new Set(readFileSync(path, 'utf8').split('\n').map((l) => l.trim().toLowerCase()).filter((l) => l !== '' && !l.startsWith('#')));
}

function relPath(pkg: SourcePackage, file: string): string {
  const rel = relative(pkg.root, file);
  return pkg.ecosystem === 'debian' && pkg.root.endsWith('gocode/src') ? rel.split('/').slice(3).join('/') : rel;
}

export interface HarvestState {
  readonly parser: FileParser;
  readonly extraNames: ReadonlySet<string>;
  readonly badHashes: Set<string>;
  readonly seenFiles: Set<string>;
  readonly seenCode: Set<string>;
  readonly descCount: Map<string, number>;
  readonly records: string[];
  readonly skipped: { licence: number; heldOut: number; fileHash: number; mapDescriptions: number };
}

/** A package extracted from source maps (train/extract-maps.ts): its TypeScript sources beside the compiled JavaScript. */
const fromMaps = (pkg: SourcePackage): boolean => pkg.version.endsWith('+maps');

/** The pairs of one file into `h.records`, deduplicated; false when the file is skipped (held out, seen, minified, unparsable). */
export function harvestFile(h: HarvestState, pkg: SourcePackage, file: string, st: PackageStats): boolean {
  const path = relPath(pkg, file);
  if (isHeldOut(path, h.extraNames)) return false;
  const bytes = readFileSync(file);
  const fileHash = sha(bytes);
  if (h.badHashes.has(fileHash)) {
    h.skipped.fileHash++;
    return false;
  }
  if (h.seenFiles.has(fileHash)) return false;
  h.seenFiles.add(fileHash);
  const text = bytes.toString('utf8');
  if (/\n[^\n]{1500}/.test(text.slice(0, 50_000))) return false; // minified or generated
  const { language, contentType } = detectLanguage(path);
  let parsed;
  try {
    parsed = h.parser.parse({ path, language, contentType, text });
  } catch {
    return false;
  }
  const buf = Buffer.from(text, 'utf8');
  for (const chunk of parsed.chunks) {
    if (st.pairs >= MAX_PAIRS_PER_PACKAGE) break;
    const pair = pairOf(chunk, buf.subarray(chunk.startByte, chunk.endByte).toString('utf8'), language);
    if (!pair) continue;
    const codeKey = sha(pair.code.replace(/\s+/g, ' '));
    if (h.seenCode.has(codeKey)) continue;
    const dKey = pair.description.toLowerCase();
    const dn = h.descCount.get(dKey) ?? 0;
    if (dn >= MAX_SAME_DESCRIPTION) continue;
    // A map source's function whose compiled copy (JSDoc kept by tsc) is already a pair would be its
    // twin's false negative in the in-batch softmax (same package name, same batch group): dropped.
    if (dn > 0 && fromMaps(pkg)) {
      h.skipped.mapDescriptions++;
      continue;
    }
    h.seenCode.add(codeKey);
    h.descCount.set(dKey, dn + 1);
    st.pairs++;
    const rec: PairRecord = { pkg: `${pkg.ecosystem}:${pkg.name}`, ecosystem: pkg.ecosystem, language, path, ...pair };
    h.records.push(JSON.stringify(rec));
  }
  return true;
}

/**
 * `--previous DIR`: an earlier harvest (pairs.jsonl, data-manifest.json) is kept as it is and
 * extended: its packages (same ecosystem, name and version) are not read again, its code hashes
 * and descriptions count for deduplication, and its pairs come first in the new corpus.
 */
function loadPrevious(dir: string | undefined, h: HarvestState, stats: PackageStats[]): Set<string> {
  const done = new Set<string>();
  if (!dir) return done;
  const manifest = JSON.parse(readFileSync(join(dir, 'data-manifest.json'), 'utf8')) as { perPackage: PackageStats[]; packagesRead?: string[] };
  for (const st of manifest.perPackage) {
    stats.push(st);
    done.add(`${st.ecosystem}:${st.name}@${st.version}`);
  }
  for (const key of manifest.packagesRead ?? []) done.add(key);
  for (const line of readFileSync(join(dir, 'pairs.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const rec = JSON.parse(line) as PairRecord;
    h.seenCode.add(sha(rec.code.replace(/\s+/g, ' ')));
    const dKey = rec.description.toLowerCase();
    h.descCount.set(dKey, (h.descCount.get(dKey) ?? 0) + 1);
    h.records.push(line);
  }
  return done;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { npm: { type: 'string' }, out: { type: 'string' }, 'exclude-names': { type: 'string' }, 'exclude-hashes': { type: 'string' }, previous: { type: 'string' } } });
  const out = values.out ?? '/work/train-data';
  const extraNames = readLines(values['exclude-names']);
  const all = [...(values.npm ?? '').split(',').filter(Boolean).flatMap((dir) => npmPackages(dir)), ...debianPackages(), ...cargoCrates()];
  const grammars = await loadGrammars(['javascript', 'typescript', 'tsx', 'python', 'go', 'rust']);
  const h: HarvestState = {
    parser: createFileParser({ windowLines: 60, overlapLines: 8, maxBytes: 4096 }, grammars), extraNames, badHashes: readLines(values['exclude-hashes']),
    seenFiles: new Set(), seenCode: new Set(), descCount: new Map(), records: [], skipped: { licence: 0, heldOut: 0, fileHash: 0, mapDescriptions: 0 },
  };
  // Held-out packages installed here (as dependencies) give their file hashes: vendored copies elsewhere are skipped too.
  for (const pkg of all) if (isHeldOut(pkg.name, extraNames)) for (const f of pkg.files) h.badHashes.add(sha(readFileSync(f)));
  const stats: PackageStats[] = [];
  const done = loadPrevious(values.previous, h, stats);
  const read = new Set(done);
  for (const pkg of all.sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version))) {
    const key = `${pkg.ecosystem}:${pkg.name}@${pkg.version}`;
    if (done.has(key)) continue;
    read.add(key);
    if (!pkg.permissive) { h.skipped.licence++; continue; }
    if (isHeldOut(pkg.name, extraNames)) { h.skipped.heldOut++; continue; }
    if (GENERATED_PACKAGES.test(pkg.name)) continue;
    const st: PackageStats = { name: pkg.name, ecosystem: pkg.ecosystem, version: pkg.version, licence: pkg.licence, files: 0, pairs: 0 };
    for (const file of pkg.files.slice(0, MAX_FILES_PER_PACKAGE)) if (harvestFile(h, pkg, file, st)) st.files++;
    if (st.pairs > 0) stats.push(st);
    process.stderr.write(`${pkg.ecosystem}:${pkg.name} ${st.files} files ${st.pairs} pairs (total ${h.records.length})\n`);
  }
  const corpus = `${h.records.join('\n')}\n`;
  writeFileSync(join(out, 'pairs.jsonl'), corpus);
  const manifest = {
    id: `scry-pairs-${sha(corpus).slice(0, 16)}`, pairsSha256: sha(corpus), pairs: h.records.length, packages: stats.length, skippedPackages: h.skipped,
    ...(values.previous ? { extends: (JSON.parse(readFileSync(join(values.previous, 'data-manifest.json'), 'utf8')) as { id: string }).id } : {}),
    heldOutNames: 'train/sources.ts HELD_OUT_NAMES plus --exclude-names', excludedFileHashes: h.badHashes.size, excludedNames: [...extraNames].sort(), perPackage: stats,
    // Every package read (with pairs or none), so a later `--previous` run skips them all.
    packagesRead: [...read].sort(),
  };
  writeFileSync(join(out, 'data-manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  process.stderr.write(`${h.records.length} pairs from ${stats.length} packages; skipped ${JSON.stringify(h.skipped)}\n`);
}

if (process.argv[1]?.endsWith('harvest.ts')) await main();
