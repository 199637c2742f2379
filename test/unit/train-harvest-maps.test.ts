import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileParser } from '../../src/parse/chunker.js';
import { loadGrammars } from '../../src/parse/grammars.js';
import type { HarvestState, PackageStats } from '../../train/harvest.js';
import { harvestFile } from '../../train/harvest.js';
import type { SourcePackage } from '../../train/sources.js';

/** A body long enough that the chunker keeps each function a chunk of its own. */
const body = (name: string): string => Array.from({ length: 30 }, (_, i) => `  const ${name}${i} = out.length + ${i};\n  out.length = ${name}${i};\n`).join('');
const compiled = '/**\n * Merges overlapping time ranges into one sorted list of ranges.\n */\nexport function mergeRanges(ranges) {\n  const out = [];\n  for (const r of ranges.sort((a, b) => a[0] - b[0])) out.push(r);\n  return out;\n}\n';
const source = '/**\n * Merges overlapping time ranges into one sorted list of ranges.\n */\nexport function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {\n  const out: Array<[number, number]> = [];\n  for (const r of ranges.sort((a, b) => a[0] - b[0])) out.push(r);\n' + body('m') + '  return out;\n}\n\n/**\n * Splits a time range into pieces no longer than the given step.\n */\nexport function splitRange(range: [number, number], step: number): Array<[number, number]> {\n  const out: Array<[number, number]> = [];\n  for (let t = range[0]; t < range[1]; t += step) out.push([t, Math.min(range[1], t + step)]);\n' + body('s') + '  return out;\n}\n';

let dir = '';
let state: HarvestState;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scry-harvest-'));
  const grammars = await loadGrammars(['javascript', 'typescript']);
  state = {
    parser: createFileParser({ windowLines: 60, overlapLines: 8, maxBytes: 4096 }, grammars), extraNames: new Set(), badHashes: new Set(),
    seenFiles: new Set(), seenCode: new Set(), descCount: new Map(), records: [], skipped: { licence: 0, heldOut: 0, fileHash: 0, mapDescriptions: 0 },
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pkgWith(version: string, rel: string, text: string): { pkg: SourcePackage; file: string } {
  const root = join(dir, version);
  mkdirSync(join(root, 'dist'), { recursive: true });
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, rel), text);
  return { pkg: { ecosystem: 'npm', name: 'ranges', version, licence: 'MIT', permissive: true, files: [join(root, rel)], root }, file: join(root, rel) };
}

const stats = (version: string): PackageStats => ({ name: 'ranges', ecosystem: 'npm', version, licence: 'MIT', files: 0, pairs: 0 });

describe('harvesting a source-map copy (train/harvest.ts)', () => {
  it("drops a map source's pair whose description the compiled JavaScript already gave, keeps the new ones", () => {
    const js = pkgWith('1.0.0', 'dist/index.js', compiled);
    harvestFile(state, js.pkg, js.file, stats('1.0.0'));
    expect(state.records).toHaveLength(1);
    const ts = pkgWith('1.0.0+maps', 'src/index.ts', source);
    const st = stats('1.0.0+maps');
    harvestFile(state, ts.pkg, ts.file, st);
    const descriptions = state.records.map((r) => (JSON.parse(r) as { description: string; language: string }).description);
    expect(descriptions).toEqual(['Merges overlapping time ranges into one sorted list of ranges.', 'Splits a time range into pieces no longer than the given step.']);
    expect(st.pairs).toBe(1);
    expect(state.skipped.mapDescriptions).toBe(1);
  });
});
