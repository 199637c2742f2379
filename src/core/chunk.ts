import type { ContentType } from './file.js';

/** How a chunk was cut. Later chunkers (tree-sitter) add kinds; never rename one. */
export type ChunkKind = 'window' | 'section' | 'frontmatter' | 'file';

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
}

/** The file a chunker is asked to cut. */
export interface ChunkInput {
  readonly path: string;
  readonly language: string;
  readonly contentType: ContentType;
  readonly text: string;
}
