/**
 * Golden files for the chunkers (STYLE.md habit 6). Each input `test/golden/parse/<case>.<ext>`
 * has a readable `<case>.golden.json` next to it (case names are unique). `UPDATE_GOLDEN=1` rewrites the goldens;
 * review the diff before committing.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChunkDraft } from '../../../src/core/chunk.js';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { detectLanguage } from '../../../src/discover/language.js';
import { createFileParser, type FileParser } from '../../../src/parse/chunker.js';
import { loadGrammars } from '../../../src/parse/grammars.js';
import { parsedLanguages } from '../../../src/parse/languages/registry.js';

const GOLDEN_DIR = fileURLToPath(new URL('../../golden/parse/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/** The production defaults (config/schema.ts), so the goldens show what users get. */
const CONFIG: ChunkConfig = { windowLines: 60, overlapLines: 8, maxBytes: 4096 };

interface GoldenChunk {
  readonly kind: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly symbol: string | null;
  readonly container: string | null;
  readonly signature?: string;
  readonly defines?: readonly string[];
  /** First line of the chunk's bytes, cut at 80 characters: what a reviewer looks at. */
  readonly firstLine: string;
}

function toGolden(bytes: Buffer, chunks: readonly ChunkDraft[]): GoldenChunk[] {
  return chunks.map((c) => {
    const first = bytes.subarray(c.startByte, c.endByte).toString('utf8').split(/\r?\n/)[0]!;
    return {
      kind: c.kind,
      startLine: c.startLine,
      endLine: c.endLine,
      startByte: c.startByte,
      endByte: c.endByte,
      symbol: c.symbol ?? null,
      container: c.container ?? null,
      ...(c.signature ? { signature: c.signature } : {}),
      ...(c.defines && c.defines.length > 1 ? { defines: c.defines } : {}),
      firstLine: [...first].slice(0, 80).join(''),
    };
  });
}

/** One chunk per line, so a diff shows exactly which chunks moved. */
function format(golden: readonly GoldenChunk[]): string {
  return golden.length === 0 ? '[]\n' : `[\n${golden.map((g) => `  ${JSON.stringify(g)}`).join(',\n')}\n]\n`;
}

const caseName = (file: string): string => file.slice(0, file.lastIndexOf('.'));

const cases = readdirSync(GOLDEN_DIR)
  .filter((name) => !name.endsWith('.golden.json') && !name.startsWith('.'))
  .sort();

let parser: FileParser;
beforeAll(async () => {
  const grammars = await loadGrammars(parsedLanguages());
  // every registered grammar must load: a golden silently made by the fallback would hide it
  expect([...grammars.keys()].sort()).toEqual(parsedLanguages());
  parser = createFileParser(CONFIG, grammars);
});

describe('chunker goldens', () => {
  it('has inputs, each with a unique case name', () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
    expect(new Set(cases.map(caseName)).size).toBe(cases.length);
  });

  it.each(cases)('%s', (name) => {
    const bytes = readFileSync(join(GOLDEN_DIR, name));
    const text = bytes.toString('utf8');
    const { language, contentType } = detectLanguage(name);
    const actual = format(toGolden(bytes, parser.parse({ path: name, language, contentType, text }).chunks));
    const goldenPath = join(GOLDEN_DIR, `${caseName(name)}.golden.json`);
    if (UPDATE) {
      writeFileSync(goldenPath, actual);
      return;
    }
    if (!existsSync(goldenPath)) throw new Error(`missing ${goldenPath}; run with UPDATE_GOLDEN=1 and review it`);
    expect(actual).toBe(readFileSync(goldenPath, 'utf8'));
  });
});
