import type { ContentType } from './file.js';
import type { ImportDraft, SymbolDraft, SymbolKind } from './symbol.js';

/**
 * How a chunk was cut: a line window, a markdown section or frontmatter, a config key, a group of
 * top-level statements or imports, or a definition (then the kind of the symbol it defines).
 * Stored and returned to users: add kinds, never rename one.
 */
export type ChunkKind = 'window' | 'section' | 'frontmatter' | 'file' | 'key' | 'statements' | 'imports' | SymbolKind;

/** A chunk as a chunker produces it: a span of one file's text. */
export interface ChunkDraft {
  readonly kind: ChunkKind;
  /** 1-based, inclusive. */
  readonly startLine: number;
  /** 1-based, inclusive. */
  readonly endLine: number;
  /** UTF-8 byte offset of the first byte, 0-based. */
  readonly startByte: number;
  /** UTF-8 byte offset one past the last byte. */
  readonly endByte: number;
  /** Name of the symbol or heading this chunk is about, if known. */
  readonly symbol?: string | undefined;
  /** Breadcrumb of containers, e.g. `Install > From source` or `class Foo`. */
  readonly container?: string | undefined;
  /** Names this chunk defines (best effort for the window chunker), indexed in the symbol field. */
  readonly defines?: readonly string[] | undefined;
  /** Declaration head of the chunk's symbol (code) — indexed as a weighted field and shown in results. */
  readonly signature?: string | undefined;
}

/**
 * Why a file that has a grammar was chunked by the line-window fallback instead. Stable strings.
 * `parse_budget`: the file needs more parsing or query work than the deterministic budget allows
 * (the same on every machine); `parse_timeout`: the wall-clock guard against a hang stopped it, a
 * transient outcome, so the file is parsed again on the next pass (see TRANSIENT_FALLBACKS).
 */
export type FallbackReason = 'grammar_unavailable' | 'parse_budget' | 'parse_timeout' | 'parse_error' | 'too_deep';

/** Fallbacks that depend on the machine rather than the file: their rows are re-parsed on the next pass. */
export const TRANSIENT_FALLBACKS: ReadonlySet<string> = new Set<FallbackReason>(['parse_timeout']);

/** Everything a parser learns from one file. */
export interface ParsedFile {
  readonly chunks: ChunkDraft[];
  /** Definitions (code files parsed with a grammar); empty otherwise. */
  readonly symbols: readonly SymbolDraft[];
  readonly imports: readonly ImportDraft[];
  /**
   * Comments and docstrings: sorted, disjoint UTF-8 byte ranges `[start, end)` of the file (code
   * parsed with a grammar; absent otherwise). Their text is a chunk's FTS `doc` field.
   */
  readonly docs?: ReadonlyArray<readonly [number, number]> | undefined;
  /** Document metadata, e.g. markdown YAML frontmatter as plain JSON values. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** Which parser produced this (`tree-sitter`, `window`, `markdown`, `json`...). */
  readonly parser: string;
  /** Set when a grammar exists for the language but the window fallback was used. */
  readonly fallback?: FallbackReason | undefined;
}

/** The file a chunker is asked to cut. */
export interface ChunkInput {
  readonly path: string;
  readonly language: string;
  readonly contentType: ContentType;
  readonly text: string;
}
