import { cjkTerms, identifierParts, isCompoundIdentifier, partsOfLines, pathTerms, splitIdentifier, stemTerms } from '../core/code-tokens.js';
import type { FtsFields } from '../store/chunk-repo.js';

/** Per-file fields, computed once and shared by all of a file's chunks. */
export interface FileFields {
  readonly stem: string;
  readonly path: string;
}

export function fileFields(path: string): FileFields {
  return { stem: stemTerms(path), path: pathTerms(path) };
}

/** What a chunk's fields are computed from: a chunker's draft, or a stored chunk row (see `definesOf`). */
export interface FieldSource {
  readonly startLine: number;
  readonly endLine: number;
  readonly symbol?: string | null | undefined;
  readonly container?: string | null | undefined;
  readonly signature?: string | null | undefined;
  readonly defines?: readonly string[] | undefined;
}

/**
 * A draft's `defines` as a chunk row stores them: '' when the names the fields use are just the
 * symbol (or none), which is most chunks; else front-coded, as JSON `[shared, suffix, ...]`: each
 * name shares `shared` leading characters with the one before it (the symbol, for the first).
 * Config key paths under one parent share long prefixes; stored whole they would add 5% to an index.
 */
export function storedDefines(chunk: { readonly defines?: readonly string[] | undefined; readonly symbol?: string | undefined }): string {
  const d = chunk.defines;
  if (!d?.length || (d.length === 1 && d[0] === chunk.symbol)) return '';
  const coded: Array<number | string> = [];
  let prev = chunk.symbol ?? '';
  for (const name of d) {
    let shared = 0;
    while (shared < prev.length && shared < name.length && prev.charCodeAt(shared) === name.charCodeAt(shared)) shared++;
    coded.push(shared, name.slice(shared));
    prev = name;
  }
  return JSON.stringify(coded);
}

/** The `defines` of a stored chunk row (see `storedDefines`), as `chunkFields` takes them. */
export function definesOf(stored: string, symbol: string | null): string[] | undefined {
  if (!stored) return undefined;
  const coded = JSON.parse(stored) as Array<number | string>;
  const names: string[] = [];
  let prev = symbol ?? '';
  for (let i = 0; i < coded.length; i += 2) {
    prev = prev.slice(0, coded[i] as number) + (coded[i + 1] as string);
    names.push(prev);
  }
  return names;
}

/**
 * A chunk's comment and docstring ranges as its row stores them (`doc_spans`): '' when none, else
 * `start-end` pairs of UTF-8 byte offsets relative to the chunk's first byte, comma-separated.
 * `docs` are the file's ranges (`ParsedFile.docs`, sorted); a range crossing the chunk's edge is clipped.
 */
export function storedDocSpans(docs: ReadonlyArray<readonly [number, number]> | undefined, startByte: number, endByte: number): string {
  if (!docs?.length) return '';
  const out: string[] = [];
  // binary search for the first range ending after the chunk's start
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (docs[mid]![1] <= startByte) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < docs.length && docs[i]![0] < endByte; i++) {
    const s = Math.max(docs[i]![0], startByte) - startByte;
    const e = Math.min(docs[i]![1], endByte) - startByte;
    if (e > s) out.push(`${s}-${e}`);
  }
  return out.join(',');
}

/**
 * The `body` and `doc` fields of a chunk's bytes: `doc` is the text of its comment and docstring
 * spans (`storedDocSpans`), one per line; `body` the rest, each span replaced by one space so
 * that no two words around it join. Offsets that do not fit the text are ignored (never thrown).
 */
export function splitDoc(bytes: Buffer, spans: string | null | undefined): { body: string; doc: string } {
  if (!spans) return { body: bytes.toString('utf8'), doc: '' };
  const body: string[] = [];
  const doc: string[] = [];
  let at = 0;
  for (const pair of spans.split(',')) {
    const dash = pair.indexOf('-');
    const s = Number(pair.slice(0, dash));
    const e = Math.min(Number(pair.slice(dash + 1)), bytes.length);
    if (!(s >= at && e > s)) continue;
    body.push(bytes.subarray(at, s).toString('utf8'));
    doc.push(bytes.subarray(s, e).toString('utf8'));
    at = e;
  }
  body.push(bytes.subarray(at).toString('utf8'));
  return { body: body.join(' '), doc: doc.join('\n') };
}

/**
 * The lexical fields of one chunk. `body` is the raw text (FTS5 keeps identifiers whole);
 * `parts` adds the words of compound identifiers and the bigrams of CJK text; `symbol` is the chunk's name and breadcrumb;
 * `signature` is the declaration head of the chunk's symbol (parameter and type names); `doc` its
 * comments and docstrings, taken out of `body` (`splitDoc`: the caller sets both from the chunk's
 * bytes; here `body` is the whole text and `doc` empty). The same function computes the fields of
 * a chunk copied from a stored file with the same content.
 */
export function chunkFields(file: FileFields, chunk: FieldSource, text: string, compounds?: readonly (readonly string[] | undefined)[]): FtsFields {
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
  // CJK text in bigrams: unicode61 keeps a run of CJK letters whole (see cjkTerms)
  const parts = [symbolParts, bodyParts, cjkTerms(text)].filter(Boolean).join(' ; ');
  return { stem: file.stem, path: file.path, symbol, signature: chunk.signature ?? '', body: text, parts, doc: '' };
}
