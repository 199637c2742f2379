import type { Range, Tree } from 'web-tree-sitter';
import type { ChunkInput, FallbackReason, ParsedFile } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import { chunkSyntax } from './ast-chunker.js';
import type { LoadedGrammar } from './grammars.js';
import { LineTable } from './line-table.js';
import { findDefinitions, importsOf, runQuery, symbolsOf } from './syntax-symbols.js';

/**
 * Time allowed to parse one file and run its queries. tree-sitter parses 3–5 MB/s here, so a
 * 1 MB file takes about 250 ms; a file that takes 8× that is pathological and falls back to the
 * line-window chunker.
 */
export const PARSE_TIME_LIMIT_MS = 2000;

export type CodeParse = { ok: true; parsed: ParsedFile } | { ok: false; reason: FallbackReason; detail?: string };

/** Parses with a deadline; null when the deadline passed. */
function parseWithDeadline(grammar: LoadedGrammar, text: string, deadline: number, ranges: Range[] | undefined): Tree | null {
  return grammar.parser.parse(text, null, { progressCallback: () => performance.now() > deadline, ...(ranges ? { includedRanges: ranges } : {}) });
}

/**
 * Chunks, symbols and imports of a code file, from its syntax tree. Returns a fallback reason
 * instead when the file cannot be parsed in time or its tree is mostly errors; the caller then
 * uses the line-window chunker. `ranges` restricts parsing to parts of the text (the script
 * blocks of a Vue/Svelte/HTML file); positions stay those of the whole file.
 */
export function parseCode(grammar: LoadedGrammar, input: ChunkInput, config: ChunkConfig, limitMs = PARSE_TIME_LIMIT_MS, ranges?: Range[]): CodeParse {
  let tree: Tree | null;
  // one budget for parsing and the queries: a query can be slow on a tree that parsed fast
  const deadline = performance.now() + limitMs;
  try {
    tree = parseWithDeadline(grammar, input.text, deadline, ranges);
  } catch (err) {
    grammar.parser.reset();
    return { ok: false, reason: 'parse_error', detail: err instanceof Error ? err.message : String(err) };
  }
  if (!tree) {
    grammar.parser.reset();
    return { ok: false, reason: 'parse_timeout' };
  }
  try {
    const root = tree.rootNode;
    if (!ranges && root.hasError && mostlyErrors(root.children.map((c) => (c ? { type: c.type, length: c.endIndex - c.startIndex } : undefined)), input.text.length)) {
      return { ok: false, reason: 'parse_error' };
    }
    const table = new LineTable(input.text);
    const matches = runQuery(grammar, tree, deadline);
    if (performance.now() > deadline) return { ok: false, reason: 'parse_timeout', detail: 'queries did not finish in time' };
    const defs = findDefinitions(grammar, matches.definitions);
    const imports = importsOf(grammar, matches.imports);
    const importLines = new Set(imports.map((i) => i.line - 1));
    const spec = grammar.spec;
    const ctx = { text: input.text, table, config, leading: [...spec.comments, 'decorator', 'attribute_item', 'annotation', 'attribute_list'], wrappers: spec.wrappers ?? [], importLines, firstDefinitionLine: 0 };
    const chunks = chunkSyntax(ctx, defs);
    return { ok: true, parsed: { chunks, symbols: symbolsOf(grammar, defs, input.text), imports, parser: 'tree-sitter' } };
  } catch (err) {
    // a RangeError here is nesting deeper than the stack (10,000 levels of brackets)
    return { ok: false, reason: err instanceof RangeError ? 'too_deep' : 'parse_error', detail: err instanceof Error ? err.message : String(err) };
  } finally {
    tree.delete();
  }
}

/** A tree whose top-level ERROR nodes cover more than half of the file is not worth chunking by. */
function mostlyErrors(children: ReadonlyArray<{ type: string; length: number } | undefined>, length: number): boolean {
  let errors = 0;
  for (const c of children) if (c && c.type === 'ERROR') errors += c.length;
  return errors > length / 2;
}
