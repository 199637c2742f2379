import type { ContentType, FileCandidate, SkipReason } from '../core/file.js';
import { compoundsByLine } from '../core/code-tokens.js';
import { contentHash } from '../core/hash.js';
import type { ChunkConfig } from '../config/schema.js';
import { readCandidate } from '../discover/read.js';
import type { FallbackReason } from '../core/chunk.js';
import type { ImportDraft, SymbolDraft } from '../core/symbol.js';
import { createFileParser, type FileParser } from '../parse/chunker.js';
import { loadGrammars } from '../parse/grammars.js';
import { grammarLanguages } from '../parse/languages/registry.js';
import { LineTable } from '../parse/line-table.js';
import type { ChunkRecord } from '../store/chunk-repo.js';
import { chunkFields, fileFields } from './fts-fields.js';

const encoder = new TextEncoder();

/** What preparing a file needs; plain data, so that it can be sent to a worker thread. */
export interface PrepareConfig {
  readonly root: string;
  readonly maxFileBytes: number;
  readonly chunk: ChunkConfig;
  /** Parse code with tree-sitter; false chunks everything by line windows. */
  readonly syntax: boolean;
}

/** A chunk ready to be written: its row (the ordinal is its position), minus the text, which is
 * sliced from the file's bytes on write; plus the FTS fields that are not the body. */
export interface PreparedChunk extends Omit<ChunkRecord, 'ordinal'> {
  readonly symbolField: string;
  readonly signatureField: string;
  readonly parts: string;
}

export type PreparedFile =
  | { readonly ok: false; readonly candidate: FileCandidate; readonly reason: SkipReason }
  | {
      readonly ok: true;
      readonly candidate: FileCandidate;
      readonly hash: string;
      readonly size: number;
      readonly encoding: string;
      readonly language: string;
      readonly contentType: ContentType;
      readonly lineCount: number;
      /** The decoded text as UTF-8: what the content table stores and chunk byte ranges index. */
      readonly bytes: Uint8Array;
      readonly stem: string;
      readonly path: string;
      readonly chunks: readonly PreparedChunk[];
      readonly symbols: readonly SymbolDraft[];
      readonly imports: readonly ImportDraft[];
      readonly parser: string;
      readonly fallback: FallbackReason | null;
      readonly metadata: string | null;
    };

/** A file of a language with a grammar that was chunked by line windows instead. */
export interface FallbackNote {
  readonly language: string;
  readonly reason: FallbackReason;
  readonly path: string;
  readonly detail?: string | undefined;
}

export interface PreparedBatch {
  readonly files: PreparedFile[];
  readonly fallbacks: FallbackNote[];
}

/**
 * Everything about a file that needs no database: read, decode, refuse, chunk, hash, and compute
 * the FTS fields. Pure CPU work, so that it can run on a worker thread while the main thread
 * writes the previous batch.
 */
export function prepareFile(config: PrepareConfig, parser: FileParser, candidate: FileCandidate): PreparedFile {
  const result = readCandidate(config.root, candidate, config.maxFileBytes);
  if (!result.ok) return { ok: false, candidate, reason: result.reason };
  const input = { path: candidate.path, language: result.language, contentType: result.contentType, text: result.text };
  const parsed = parser.parse(input);
  const drafts = parsed.chunks;
  // its own ArrayBuffer (never a slice of Buffer's shared pool), so that it can be transferred
  const bytes = encoder.encode(result.text);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const file = fileFields(candidate.path);
  const compounds = compoundsByLine(result.text);
  const chunks = drafts.map((d): PreparedChunk => {
    const text = view.subarray(d.startByte, d.endByte).toString('utf8');
    const fields = chunkFields(file, d, text, compounds);
    return {
      kind: d.kind,
      startLine: d.startLine,
      endLine: d.endLine,
      startByte: d.startByte,
      endByte: d.endByte,
      hash: contentHash(text),
      symbol: d.symbol ?? null,
      container: d.container ?? null,
      signature: d.signature ?? null,
      symbolField: fields.symbol,
      signatureField: fields.signature,
      parts: fields.parts,
    };
  });
  return {
    ok: true,
    candidate,
    hash: result.hash,
    size: result.size,
    encoding: result.encoding,
    language: result.language,
    contentType: result.contentType,
    lineCount: new LineTable(result.text).count,
    bytes,
    stem: file.stem,
    path: file.path,
    chunks,
    symbols: parsed.symbols,
    imports: parsed.imports,
    parser: parsed.parser,
    fallback: parsed.fallback ?? null,
    metadata: parsed.metadata ? JSON.stringify(parsed.metadata) : null,
  };
}

/**
 * Prepares a batch. The grammars its languages need are loaded first (once per thread, cached);
 * everything after that is synchronous. A worker needs nothing but config.
 */
export async function prepareBatch(config: PrepareConfig, batch: readonly FileCandidate[]): Promise<PreparedBatch> {
  const grammars = config.syntax ? await loadGrammars(batch.flatMap((c) => grammarLanguages(c.language))) : undefined;
  const fallbacks: FallbackNote[] = [];
  const parser = createFileParser(config.chunk, grammars, (language, reason, path, detail) => fallbacks.push({ language, reason, path, detail }));
  return { files: batch.map((c) => prepareFile(config, parser, c)), fallbacks };
}
