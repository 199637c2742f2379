/**
 * The paraphrase set's corpus and queries, shared by its test and bench/model-quality.ts: four
 * packages' `lib/` folders copied from pinned node_modules (test/quality/corpus.ts does the copy).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CorpusPackage } from '../quality/corpus.js';

export interface ParaphraseQuery {
  readonly id: string;
  readonly query: string;
  readonly expected: ReadonlyArray<{ readonly path: string; readonly symbol: string }>;
}

export const PARAPHRASE_CORPUS: readonly CorpusPackage[] = [
  { name: 'commander', paths: ['lib'] },
  { name: 'picomatch', paths: ['lib'] },
  { name: 'better-sqlite3', paths: ['lib'] },
  { name: 'node-gyp', paths: ['lib'] },
];

export function readParaphraseQueries(): ParaphraseQuery[] {
  return JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'queries.json'), 'utf8')) as ParaphraseQuery[];
}
