import type { ChunkDraft } from '../core/chunk.js';
import { identifierParts, isCompoundIdentifier, partsOfLines, pathTerms, splitIdentifier, stemTerms } from '../core/code-tokens.js';
import type { FtsFields } from '../store/chunk-repo.js';

/** Per-file fields, computed once and shared by all of a file's chunks. */
export interface FileFields {
  readonly stem: string;
  readonly path: string;
}

export function fileFields(path: string): FileFields {
  return { stem: stemTerms(path), path: pathTerms(path) };
}

/**
 * The lexical fields of one chunk. `body` is the raw text (FTS5 keeps identifiers whole);
 * `parts` adds the words of compound identifiers; `symbol` is the chunk's name and breadcrumb;
 * `signature` is the declaration head of the chunk's symbol (parameter and type names).
 */
export function chunkFields(file: FileFields, chunk: ChunkDraft, text: string, compounds?: readonly (readonly string[] | undefined)[]): FtsFields {
  const names = chunk.defines?.length ? chunk.defines : chunk.symbol ? [chunk.symbol] : [];
  // each name whole and in words, so `calculate instability` meets `calculateInstability` here;
  // a word is written once per chunk: 14 key paths under `compilerOptions` must not give the
  // word `compiler` a term frequency of 14
  const seen = new Set<string>();
  const words = names.map((n) => {
    if (!isCompoundIdentifier(n)) return n;
    const fresh = splitIdentifier(n).filter((w) => {
      const k = w.toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    return fresh.length > 0 ? `${n} ${fresh.join(' ')}` : n;
  });
  const symbol = [...words, chunk.container].filter(Boolean).join(' ; ');
  // `compounds` (the file's compound identifiers by line) spares re-scanning overlapping windows
  const bodyParts = compounds ? partsOfLines(compounds, chunk.startLine - 1, chunk.endLine - 1) : identifierParts(text);
  const symbolParts = symbol ? [...new Set(identifierParts(symbol).split(' ; '))].join(' ; ') : '';
  const parts = symbolParts && bodyParts ? `${symbolParts} ; ${bodyParts}` : symbolParts || bodyParts;
  return { stem: file.stem, path: file.path, symbol, signature: chunk.signature ?? '', body: text, parts };
}
