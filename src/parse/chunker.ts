import type { ChunkDraft, ChunkInput } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import { chunkMarkdown } from './markdown-chunker.js';
import { chunkWindows } from './window-chunker.js';

/**
 * A chunker cuts one file into spans. Implementations must be deterministic and cover every
 * non-blank line of the file (overlap allowed up to the configured overlap). The tree-sitter
 * chunkers of a later issue plug in here.
 */
export interface Chunker {
  /** Stable name, recorded with each chunk's kind for debugging. */
  readonly name: string;
  chunk(input: ChunkInput): ChunkDraft[];
}


export function createChunkers(config: ChunkConfig): { forFile(input: ChunkInput): Chunker } {
  const window: Chunker = { name: 'window', chunk: (input) => chunkWindows(input.text, config, input.language) };
  const markdown: Chunker = { name: 'markdown', chunk: (input) => chunkMarkdown(input.text, config) };
  return {
    forFile: (input) => (input.language === 'markdown' ? markdown : window),
  };
}
