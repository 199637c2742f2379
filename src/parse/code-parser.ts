import type { Range, Tree } from 'web-tree-sitter';
import type { ChunkInput, FallbackReason, ParsedFile } from '../core/chunk.js';
import type { Clock } from '../core/logger.js';
import type { ChunkConfig } from '../config/schema.js';
import { chunkSyntax } from './ast-chunker.js';
import type { LoadedGrammar } from './grammars.js';
import { LineTable } from './line-table.js';
import { monotonicClock, PARSE_LIMITS, PARSE_TIMEOUT_MS, workMeter, type ParseLimits, type WorkMeter } from './parse-budget.js';
import { docRanges, functionBodies } from './doc-ranges.js';
import { findDefinitions, importsOf, runQuery, symbolsOf } from './syntax-symbols.js';

export type CodeParse = { ok: true; parsed: ParsedFile } | { ok: false; reason: FallbackReason; detail?: string };

/** How much parsing one file may cost (see parse-budget.ts); every field has its production default. */
export interface CodeParseOptions {
  /** The deterministic work budget. Default PARSE_LIMITS. */
  readonly limits?: ParseLimits | undefined;
  /** Wall-clock guard against a hang, ms, for parsing and the query together. Default PARSE_TIMEOUT_MS. */
  readonly timeoutMs?: number | undefined;
  /** The guard's time source. Default monotonicClock. */
  readonly clock?: Clock | undefined;
  /** Restricts parsing to parts of the text (the script blocks of a Vue/Svelte/HTML file). */
  readonly ranges?: Range[] | undefined;
}

/** The fallback for a meter that cancelled: over budget for good, or past the guard (retried next pass). */
function stopped(meter: WorkMeter, phase: 'parse' | 'query', budget: number): CodeParse {
  return meter.stopped() === 'budget'
    ? { ok: false, reason: 'parse_budget', detail: `${phase} needs more than ${budget} work units` }
    : { ok: false, reason: 'parse_timeout', detail: `${phase} stopped by the wall-clock guard after ${meter.used()} work units` };
}

/**
 * Chunks, symbols and imports of a code file, from its syntax tree. Returns a fallback reason
 * instead when the file needs more work than the budget allows, hits the wall-clock guard, or
 * its tree is mostly errors; the caller then uses the line-window chunker. With `ranges`,
 * positions stay those of the whole file.
 */
export function parseCode(grammar: LoadedGrammar, input: ChunkInput, config: ChunkConfig, options: CodeParseOptions = {}): CodeParse {
  const limits = options.limits ?? PARSE_LIMITS;
  const clock = options.clock ?? monotonicClock;
  // one guard for parsing and the query: a query can hang on a tree that parsed fast
  const deadline = clock.now() + (options.timeoutMs ?? PARSE_TIMEOUT_MS);
  const parseMeter = workMeter(limits.parseWork, clock, deadline);
  let tree: Tree | null;
  try {
    tree = grammar.parser.parse(input.text, null, { progressCallback: parseMeter.tick, ...(options.ranges ? { includedRanges: options.ranges } : {}) });
  } catch (err) {
    grammar.parser.reset();
    return { ok: false, reason: 'parse_error', detail: err instanceof Error ? err.message : String(err) };
  }
  if (!tree) {
    grammar.parser.reset();
    return stopped(parseMeter, 'parse', limits.parseWork);
  }
  try {
    const root = tree.rootNode;
    if (!options.ranges && root.hasError && mostlyErrors(root.children.map((c) => (c ? { type: c.type, length: c.endIndex - c.startIndex } : undefined)), input.text.length)) {
      return { ok: false, reason: 'parse_error' };
    }
    const queryMeter = workMeter(limits.queryWork, clock, deadline);
    const matches = runQuery(grammar, tree, queryMeter.tick);
    if (queryMeter.stopped()) return stopped(queryMeter, 'query', limits.queryWork);
    const found = matches.definitions.length + matches.imports.length;
    if (found > limits.queryMatches) return { ok: false, reason: 'parse_budget', detail: `query found ${found} matches, more than ${limits.queryMatches}` };
    // identifier uses are not collected here: a reference search parses its candidate files (search/references.ts)
    return { ok: true, parsed: fromMatches(grammar, input, config, matches) };
  } catch (err) {
    // a RangeError here is nesting deeper than the stack (10,000 levels of brackets)
    return { ok: false, reason: err instanceof RangeError ? 'too_deep' : 'parse_error', detail: err instanceof Error ? err.message : String(err) };
  } finally {
    tree.delete();
  }
}

/** Definitions, chunks, symbols and imports from the query's matches. */
function fromMatches(grammar: LoadedGrammar, input: ChunkInput, config: ChunkConfig, matches: ReturnType<typeof runQuery>): ParsedFile {
  const table = new LineTable(input.text);
  const defs = findDefinitions(grammar, matches.definitions);
  const imports = importsOf(grammar, matches.imports);
  const importLines = new Set(imports.map((i) => i.line - 1));
  const spec = grammar.spec;
  const ctx = { text: input.text, table, config, leading: [...spec.comments, 'decorator', 'attribute_item', 'annotation', 'attribute_list'], wrappers: spec.wrappers ?? [], importLines, firstDefinitionLine: 0 };
  const chunks = chunkSyntax(ctx, defs);
  const docs = docRanges(matches.docs, table, config.inlineComments === 'body' ? functionBodies(defs) : []);
  return { chunks, symbols: symbolsOf(grammar, defs, input.text), imports, docs, parser: 'tree-sitter' };
}

/** A tree whose top-level ERROR nodes cover more than half of the file is not worth chunking by. */
function mostlyErrors(children: ReadonlyArray<{ type: string; length: number } | undefined>, length: number): boolean {
  let errors = 0;
  for (const c of children) if (c && c.type === 'ERROR') errors += c.length;
  return errors > length / 2;
}
