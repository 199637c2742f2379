import type { FileCandidate } from '../core/file.js';
import type { FileRecord, StoredFile } from '../store/file-repo.js';
import type { IndexStore } from '../store/index-store.js';
import { rowFeatureVersion } from './feature-version.js';

/** What a file's row holds about its content: from a parse, or from the stored file it is copied from. */
export type ContentFacts = Pick<FileRecord, 'hash' | 'size' | 'language' | 'contentType' | 'encoding' | 'lineCount' | 'parser' | 'fallback' | 'metadata'>;

/**
 * Writes the row of a file being (re)indexed and clears the chunk and structure rows of its
 * previous version, if it had one; returns the file id. The caller writes the new rows. A file
 * whose parse hit the wall-clock guard is recorded as due for a re-parse (rowFeatureVersion).
 * The file is queued for the embedding pass in the same transaction (migration 009).
 */
export function replaceFileRow(store: IndexStore, candidate: FileCandidate, facts: ContentFacts, old: StoredFile | undefined, now: number): number {
  const { hash, size, language, contentType, encoding, lineCount, parser, fallback, metadata } = facts;
  const fileId = store.files.upsert({
    path: candidate.path,
    language,
    contentType,
    size,
    mtimeMs: candidate.mtimeMs,
    hash,
    encoding,
    lineCount,
    featureVersion: rowFeatureVersion(fallback),
    indexedAtMs: now,
    parser,
    fallback,
    metadata,
  });
  if (old) {
    store.chunks.deleteForFile(fileId);
    store.structure.deleteForFile(fileId);
  }
  store.embeddings.queue(fileId);
  return fileId;
}
