import { compoundsByLine } from '../core/code-tokens.js';
import type { IndexStore } from '../store/index-store.js';
import type { StoredFile } from '../store/file-repo.js';
import { INDEX_FEATURE_VERSION } from './feature-version.js';
import { chunkFields, definesOf, fileFields, splitDoc } from './fts-fields.js';
import { replaceFileRow } from './file-row.js';
import type { KnownFile } from './prepare.js';

/**
 * Indexes `file` by copying the rows of a stored file with the same content, language and
 * content type instead of parsing it (a rename, a copy): the same chunks (byte ranges, hashes,
 * symbols, signatures, defined names), symbols and imports, and the FTS fields a fresh parse
 * would give, computed by the same function from the stored rows, the stored text and the new
 * path. Call inside a transaction. Returns the number of chunks written, or undefined, having
 * written nothing, if no stored file can be copied from (none left, or only ones written before
 * chunks recorded their names); the file must then be parsed.
 */
export function copyStoredRows(store: IndexStore, file: KnownFile, old: StoredFile | undefined, now: number): number | undefined {
  const source = store.files.withContent(file.hash, file.language, file.contentType, INDEX_FEATURE_VERSION);
  if (!source) return undefined;
  const chunks = store.chunks.ofFile(source.id);
  if (chunks.some((c) => c.defines === null)) return undefined;
  const body = store.content.bodies([file.hash]).get(file.hash);
  if (!body) return undefined;
  const { candidate } = file;
  const fileId = replaceFileRow(store, candidate, { ...file, encoding: source.encoding, lineCount: source.lineCount, parser: source.parser, fallback: source.fallback, metadata: source.metadata }, old, now);
  if (old && old.hash !== file.hash && !store.files.isHashUsed(old.hash)) store.content.delete(old.hash);
  store.structure.copy(source.id, fileId);
  const fields = fileFields(candidate.path);
  const text = body.toString('utf8');
  const compounds = compoundsByLine(text);
  for (const chunk of chunks) {
    const bytes = body.subarray(chunk.startByte, chunk.endByte);
    const fts = chunkFields(fields, { ...chunk, defines: definesOf(chunk.defines!, chunk.symbol) }, bytes.toString('utf8'), compounds);
    store.chunks.insert(fileId, chunk, { ...fts, ...splitDoc(bytes, chunk.docSpans) });
  }
  return chunks.length;
}
