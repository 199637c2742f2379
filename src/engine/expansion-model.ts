/**
 * The query-expansion table (models/expand/, written by train/expand-table.ts), read once per
 * engine when `search.ranking.expansion` is on. Its sha256 is checked against manifest.json: a
 * changed, truncated or malformed table is refused with MODEL_INVALID, a missing one with
 * MODEL_NOT_FOUND.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../core/errors.js';
import { EXPANSION_FORMAT, EXPANSION_FORMAT_VERSION, parseExpansionTable, type ExpansionTable } from '../search/expansion.js';

const NAME = 'scry-expand';
const TERMS = 'terms.tsv';

/** `models/expand/` of the package: two levels up from src/engine/ and from dist/engine/. */
export function defaultExpansionDir(): string {
  return fileURLToPath(new URL('../../models/expand/', import.meta.url));
}

const invalid = (reason: string): EngineError => new EngineError('MODEL_INVALID', { model: NAME, reason }, { hint: 'reinstall scry: the expansion table shipped in its package was changed' });

function read(dir: string, file: string): Buffer {
  try {
    return readFileSync(join(dir, file));
  } catch (err) {
    throw new EngineError('MODEL_NOT_FOUND', { model: NAME, dir }, { cause: err, hint: 'reinstall scry: the expansion table shipped in its package is missing' });
  }
}

export function loadExpansionTable(dir: string = defaultExpansionDir()): ExpansionTable {
  let manifest: { format?: unknown; formatVersion?: unknown; files?: Record<string, unknown> };
  try {
    manifest = JSON.parse(read(dir, 'manifest.json').toString('utf8')) as typeof manifest;
  } catch (err) {
    if (err instanceof EngineError) throw err;
    throw invalid('manifest.json is not JSON');
  }
  if (manifest?.format !== EXPANSION_FORMAT || manifest.formatVersion !== EXPANSION_FORMAT_VERSION) throw invalid(`format ${String(manifest?.format)} v${String(manifest?.formatVersion)}; expected ${EXPANSION_FORMAT} v${EXPANSION_FORMAT_VERSION}`);
  const bytes = read(dir, TERMS);
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== manifest.files?.[TERMS]) throw invalid(`${TERMS}: sha256 ${sha} differs from the manifest's ${String(manifest.files?.[TERMS] ?? '(none)')}`);
  try {
    return parseExpansionTable(bytes.toString('utf8'), sha.slice(0, 16));
  } catch (err) {
    throw invalid((err as Error).message);
  }
}
