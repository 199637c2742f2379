import type { ContentType, FileCandidate, SkipReason } from '../core/file.js';
import { compoundsByLine } from '../core/code-tokens.js';
import { contentHash } from '../core/hash.js';
import type { ChunkConfig } from '../config/schema.js';
import { readCandidate, readDocument, type ReadResult } from '../discover/read.js';
import { isExtracted } from '../discover/language.js';
import type { DocumentsConfig } from '../config/schema.js';
import type { FallbackReason } from '../core/chunk.js';
import type { Clock } from '../core/logger.js';
import type { ImportDraft, SymbolDraft } from '../core/symbol.js';
import { createFileParser, type FileParser } from '../parse/chunker.js';
import { loadGrammars, type LoadedGrammar } from '../parse/grammars.js';
import { grammarLanguages } from '../parse/languages/registry.js';
import { LineTable } from '../parse/line-table.js';
import type { ChunkRecord } from '../store/chunk-repo.js';
import { chunkFields, fileFields, storedDefines, storedDocSpans } from './fts-fields.js';
import { chunkTimestamp, fileTimestamp } from './content-time.js';
import { packVectors, type ChunkEmbedder, type PrepareEmbedConfig } from './chunk-vectors.js';

const encoder = new TextEncoder();

/** What preparing a file needs; plain data, so that it can be sent to a worker thread. */
export interface PrepareConfig {
  readonly root: string;
  readonly maxFileBytes: number;
  readonly chunk: ChunkConfig;
  /** Parse code with tree-sitter; false chunks everything by line windows. */
  readonly syntax: boolean;
  /** Wall-clock guard per parsed file, ms (config `parseTimeoutMs`); default PARSE_TIMEOUT_MS. */
  readonly parseTimeoutMs?: number | undefined;
  /** PDFs, mail and (with `html: 'text'`) HTML pages read through their extractors (config `documents`). */
  readonly documents?: DocumentsConfig | undefined;
  /** Embed chunks with the built-in model as they are prepared (worker threads only; see chunk-vectors.ts). */
  readonly embed?: PrepareEmbedConfig | undefined;
}

/** A thread's built-in model and the chunk texts it has embedded (each is embedded once per thread). */
export interface PrepareEmbedding {
  readonly embedder: ChunkEmbedder;
  readonly seen: Set<number>;
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
      /** Token literals redacted in `bytes`: rule id → count (empty when none). */
      readonly redactions: Readonly<Record<string, number>>;
      /** The chunks' vectors, packed (see `packVectors`), when the batch was embedded (`PreparedBatch.vectors`). */
      readonly vectors?: Uint8Array | undefined;
    };

/** A file of a language with a grammar that was chunked by line windows instead. */
export interface FallbackNote {
  readonly language: string;
  readonly reason: FallbackReason;
  readonly path: string;
  readonly detail?: string | undefined;
}

/**
 * A file whose content the index already holds, found by its hash before parsing: `unchanged`,
 * the file stored at this path has it (only its stat is new); `reusable`, another stored file of
 * the same language has it (a rename or a copy), and the writer copies that file's rows.
 */
export interface KnownFile {
  readonly known: 'unchanged' | 'reusable';
  readonly candidate: FileCandidate;
  readonly hash: string;
  readonly size: number;
  readonly language: string;
  readonly contentType: ContentType;
}

/** What the index already holds, so that preparation can stop after hashing. */
export interface KnownContent {
  /** Content hash by path, of the files stored with the current feature version. */
  readonly stored?: ReadonlyMap<string, string> | undefined;
  /** Whether a file of `language` with content `hash` is stored with the current feature version. */
  readonly reusable?: ((hash: string, language: string) => boolean) | undefined;
}

/** The key of a (language, content hash) pair in a set of reusable contents. */
export const contentKey = (hash: string, language: string): string => `${language}:${hash}`;

export interface PreparedBatch {
  /** Files refused or parsed. */
  readonly files: PreparedFile[];
  /** Files not parsed, because the index holds their content. */
  readonly known: KnownFile[];
  readonly fallbacks: FallbackNote[];
  /** The model key and vector length of the files' packed `vectors`, when the batch was embedded. */
  readonly vectors?: { readonly model: string; readonly stride: number } | undefined;
}

type Accepted = { readonly candidate: FileCandidate; readonly read: Extract<ReadResult, { ok: true }> };

/** Reads and refuses a file as the walk's rules say; stops there if the index holds its content. */
function readFile(config: PrepareConfig, candidate: FileCandidate, known: KnownContent): PreparedFile | KnownFile | Accepted {
  const read = readCandidate(config.root, candidate, config.maxFileBytes);
  if (!read.ok) return { ok: false, candidate, reason: read.reason };
  const same = known.stored?.get(candidate.path) === read.hash ? 'unchanged' : known.reusable?.(read.hash, read.language) ? 'reusable' : undefined;
  if (same) return { known: same, candidate, hash: read.hash, size: read.size, language: read.language, contentType: read.contentType };
  return { candidate, read };
}

/**
 * Everything about a file that needs no database: read, decode, refuse, chunk, hash, and compute
 * the FTS fields. Pure CPU work, so that it can run on a worker thread while the main thread
 * writes the previous batch. A file is refused exactly as without `known`; once accepted, if the
 * index already holds its content (`known`), it is neither parsed nor chunked.
 */
export function prepareFile(config: PrepareConfig, parser: FileParser, candidate: FileCandidate, known: KnownContent = {}): PreparedFile | KnownFile {
  const r = readFile(config, candidate, known);
  return 'read' in r ? parseFile(parser, r, undefined) : r;
}

/** Whether a candidate is a document read through an extractor under this config. */
const isDocument = (config: PrepareConfig, candidate: FileCandidate): boolean => config.documents !== undefined && isExtracted(candidate.language, config.documents.html);

/** `readFile` for a document: extraction is asynchronous (pdf.js, mailparser). */
async function readDocumentFile(config: PrepareConfig, candidate: FileCandidate, known: KnownContent): Promise<PreparedFile | KnownFile | Accepted> {
  const read = await readDocument(config.root, candidate, config.documents!.maxBytes);
  if (!read.ok) return { ok: false, candidate, reason: read.reason };
  const same = known.stored?.get(candidate.path) === read.hash ? 'unchanged' : known.reusable?.(read.hash, read.language) ? 'reusable' : undefined;
  if (same) return { known: same, candidate, hash: read.hash, size: read.size, language: read.language, contentType: read.contentType };
  return { candidate, read };
}

/** Chunks an accepted file and computes its FTS fields. */
function parseFile(parser: FileParser, { candidate, read: result }: Accepted, embedding: PrepareEmbedding | undefined): PreparedFile {
  const input = { path: candidate.path, language: result.language, contentType: result.contentType, text: result.text };
  const parsed = parser.parse(input);
  const drafts = parsed.chunks;
  // its own ArrayBuffer (never a slice of Buffer's shared pool), so that it can be transferred
  const bytes = encoder.encode(result.text);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const file = fileFields(candidate.path);
  const compounds = compoundsByLine(result.text);
  // dates after the file's own mtime (plus a day) are typos or templates, not the time it was written
  const latest = Math.max(candidate.mtimeMs, candidate.committedMs ?? 0, 0) + 86_400_000;
  const fileTs = fileTimestamp(parsed.metadata ?? result.metadata, candidate.committedMs ?? candidate.mtimeMs, latest);
  const document = result.contentType === 'docs';
  const texts: string[] = [];
  const chunks = drafts.map((d): PreparedChunk => {
    const text = view.subarray(d.startByte, d.endByte).toString('utf8');
    if (embedding) texts.push(text);
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
      defines: storedDefines(d),
      tsMs: chunkTimestamp(d, text, document, fileTs, latest),
      docSpans: storedDocSpans(parsed.docs, d.startByte, d.endByte),
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
    metadata: parsed.metadata ? JSON.stringify(parsed.metadata) : result.metadata ? JSON.stringify(result.metadata) : null,
    redactions: result.redactions,
    vectors: embedding ? packVectors(embedding.embedder, chunks.map((c, i) => ({ text: texts[i]!, hash: c.hash, head: { path: candidate.path, symbol: c.symbol, container: c.container } })), embedding.seen) : undefined,
  };
}

/** Called as each file of a batch is prepared, with its position in the batch (per-file progress). */
export type FileDone = (index: number) => void;

/**
 * Prepares a batch. The grammars that the files left to parse need are loaded as they come up
 * (once per thread, cached: a batch of touched files loads none); the rest is synchronous. A
 * worker needs nothing but config (and `known`). `clock` times the parse guard (default monotonic).
 */
export async function prepareBatch(config: PrepareConfig, batch: readonly FileCandidate[], known: KnownContent = {}, onFile?: FileDone, clock?: Clock, embedding?: PrepareEmbedding): Promise<PreparedBatch> {
  const out: PreparedBatch = { files: [], known: [], fallbacks: [], vectors: embedding ? { model: embedding.embedder.model, stride: embedding.embedder.stride } : undefined };
  const grammars = config.syntax ? new Map<string, LoadedGrammar>() : undefined;
  const asked = new Set<string>();
  const onFallback = (language: string, reason: FallbackReason, path: string, detail?: string): void => void out.fallbacks.push({ language, reason, path, detail });
  const parser = createFileParser(config.chunk, grammars, onFallback, { timeoutMs: config.parseTimeoutMs, clock });
  for (let i = 0; i < batch.length; i++) {
    const c = batch[i]!;
    const r = isDocument(config, c) ? await readDocumentFile(config, c, known) : readFile(config, c, known);
    if ('known' in r) out.known.push(r);
    else if (!('read' in r)) out.files.push(r);
    else {
      // the language read from a shebang too: a script gets its grammar whatever else is in the batch
      const missing = grammars ? [...new Set([...grammarLanguages(c.language), ...grammarLanguages(r.read.language)])].filter((l) => !asked.has(l)) : [];
      if (missing.length > 0) {
        for (const l of missing) asked.add(l);
        for (const [l, g] of await loadGrammars(missing)) grammars!.set(l, g);
      }
      out.files.push(parseFile(parser, r, embedding));
    }
    onFile?.(i);
  }
  return out;
}
