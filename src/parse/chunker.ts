import type { ChunkDraft, ChunkInput, FallbackReason, ParsedFile } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import { parseCode, type CodeParseOptions } from './code-parser.js';
import type { LoadedGrammar } from './grammars.js';
import { languageSpec } from './languages/registry.js';
import { chunkConfig } from './config-chunker.js';
import { chunkMarkdown, markdownMetadata } from './markdown-chunker.js';
import { scriptBlocks } from './script-blocks.js';
import { chunkWindows } from './window-chunker.js';

/**
 * A chunker cuts one file into spans. Implementations must be deterministic and cover every
 * non-blank line of the file (overlap allowed up to the configured overlap).
 */
export interface Chunker {
  /** Stable name, recorded as the file's parser. */
  readonly name: string;
  chunk(input: ChunkInput): ChunkDraft[];
}

/** Cuts any file into a ParsedFile, choosing the parser by language. */
export interface FileParser {
  parse(input: ChunkInput): ParsedFile;
}

/** Called once per language and reason when a grammar'd file falls back to line windows. */
export type FallbackListener = (language: string, reason: FallbackReason, path: string, detail?: string) => void;

/** Documents extracted to markdown-shaped text by discover/formats. */
const DOCUMENT_LANGUAGES = new Set(['pdf', 'email', 'mbox', 'html']);

/** HTML-like languages whose `<script>` blocks are parsed with the JavaScript/TypeScript grammars. */
const SCRIPT_HOSTS = new Set(['vue', 'svelte', 'html']);

const plain = (chunks: ChunkDraft[], parser: string, fallback?: FallbackReason): ParsedFile => ({ chunks, symbols: [], imports: [], parser, ...(fallback ? { fallback } : {}) });

export function createChunkers(config: ChunkConfig): { forFile(input: ChunkInput): Chunker } {
  const window: Chunker = { name: 'window', chunk: (input) => chunkWindows(input.text, config, input.language) };
  const markdown: Chunker = { name: 'markdown', chunk: (input) => chunkMarkdown(input.text, config) };
  return {
    forFile: (input) => (input.language === 'markdown' ? markdown : window),
  };
}

/** The work budget and wall-clock guard of every tree-sitter parse (defaults: parse-budget.ts). */
export type ParseGuard = Omit<CodeParseOptions, 'ranges'>;

/**
 * The parser for every file of a pass. `grammars` are the tree-sitter grammars already loaded
 * (loading is async, parsing is not); a language with a spec but no loaded grammar, or a file the
 * grammar cannot parse within `guard`'s budget, gets the line-window chunker and a fallback reason.
 * Without `grammars` (config `syntax: false`) all code is chunked by line windows, with no fallback noted.
 */
export function createFileParser(config: ChunkConfig, grammars: ReadonlyMap<string, LoadedGrammar> | undefined, onFallback?: FallbackListener, guard: ParseGuard = {}): FileParser {
  const chunkers = createChunkers(config);
  const window = (input: ChunkInput, reason?: FallbackReason): ParsedFile => plain(chunkWindows(input.text, config, input.language), 'window', reason);
  return {
    parse(input) {
      // a document's extracted text (PDF, mail, HTML as text) is markdown-shaped: pages, threads, headings
      if (input.contentType === 'docs' && DOCUMENT_LANGUAGES.has(input.language)) return plain(chunkMarkdown(input.text, config), input.language);
      const grammar = grammars?.get(input.language);
      if (grammar) {
        const result = parseCode(grammar, input, config, guard);
        if (result.ok) return result.parsed;
        onFallback?.(input.language, result.reason, input.path, result.detail);
        return window(input, result.reason);
      }
      if (grammars && SCRIPT_HOSTS.has(input.language)) {
        const blocks = scriptBlocks(input.text);
        const script = blocks.length > 0 ? grammars.get(blocks[0]!.language) : undefined;
        if (script) {
          const result = parseCode(script, input, config, { ...guard, ranges: blocks.map((b) => b.range) });
          if (result.ok) return result.parsed;
          onFallback?.(input.language, result.reason, input.path, result.detail);
          return window(input, result.reason);
        }
        if (blocks.length > 0) {
          onFallback?.(input.language, 'grammar_unavailable', input.path);
          return window(input, 'grammar_unavailable');
        }
      }
      if (grammars && languageSpec(input.language)) {
        onFallback?.(input.language, 'grammar_unavailable', input.path);
        return window(input, 'grammar_unavailable');
      }
      if (input.language === 'json' || input.language === 'yaml' || input.language === 'toml') {
        return plain(chunkConfig(input.text, input.language, config), input.language);
      }
      if (input.language === 'markdown') {
        const metadata = markdownMetadata(input.text);
        return { ...plain(chunkMarkdown(input.text, config), 'markdown'), ...(metadata ? { metadata } : {}) };
      }
      const chunker = chunkers.forFile(input);
      return plain(chunker.chunk(input), chunker.name);
    },
  };
}
