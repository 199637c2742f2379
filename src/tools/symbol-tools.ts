import * as z from 'zod';
import { EngineError, formatSymbolId, parseSymbolId, type SymbolRow } from '../index.js';
import { firstLinesOfText } from './bound.js';
import { symbolSchema } from './output-schema.js';
import { renderDefinition, renderReferences, renderSymbols } from './render/symbol-text.js';
import { defineTool, limitArg, type ToolDefinition } from './tool.js';

/** Kinds named by ../shared/seeds §17.4.1 (Swift-flavoured) and the kind scry stores for each. */
const KIND_ALIASES = { protocol: 'interface', var: 'variable', typealias: 'type' } as const;

/** A definition as agents get it, with the id to pass back. */
function toSymbol(s: SymbolRow & { match?: string }): z.infer<typeof symbolSchema> {
  return {
    id: formatSymbolId(s),
    name: s.name,
    kind: s.kind,
    ...(s.container ? { container: s.container } : {}),
    signature: s.signature,
    path: s.path,
    start_line: s.startLine,
    end_line: s.endLine,
    exported: s.exported,
    ...(s.match ? { match: s.match } : {}),
  };
}

const symbolId = z
  .string()
  .min(1)
  .max(1000)
  .describe('A symbol id from search_symbols (`path#Container.name@line`), or a plain name such as "parseConfig" or "Engine.search".');

const searchSymbolsTool = defineTool({
  name: 'search_symbols',
  title: 'Search symbols',
  description:
    'Find definitions (functions, classes, methods, types...) by name: exact, then prefix, then close spellings. ' +
    '"Foo.bar" finds bar inside Foo. Returns ids for get_symbol_definition and get_references. ' +
    'Example: {"name": "openDatabase", "kind": "function"}',
  input: {
    name: z.string().min(1).max(200).describe('Symbol name or qualified name, e.g. "IndexStore" or "IndexStore.open".'),
    kind: z
      .enum(['any', 'function', 'method', 'class', 'interface', 'struct', 'enum', 'type', 'variable', 'constant', 'module', 'protocol', 'var', 'typealias'])
      .default('any')
      .describe('Only this kind of definition.'),
    limit: limitArg(100, 20, 'Definitions'),
  },
  readOnly: true,
  bound: { list: 'symbols', label: (s) => String((s as { id: string }).id) },
  output: z.looseObject({ symbols: z.array(symbolSchema), resolution: z.enum(['lsp', 'name']) }),
  render: renderSymbols,
  handler: async (args, ctx) => {
    const kind = args.kind in KIND_ALIASES ? KIND_ALIASES[args.kind as keyof typeof KIND_ALIASES] : (args.kind as Exclude<typeof args.kind, keyof typeof KIND_ALIASES>);
    const found = await ctx.engine.findSymbols(args.name, { kind, limit: args.limit });
    const warnings = found.symbols.length === 0 ? ['no definitions found: try search_code with words, or search_text for the exact string'] : [];
    if (found.fallback) warnings.push(`no language server answer: ${found.fallback}`);
    return { data: { symbols: found.symbols.map(toSymbol), resolution: found.resolution }, warnings };
  },
});

/** `path:line` or `path:line:column` → a use of a symbol; INVALID_ARGUMENT-shaped issues are left to the engine. */
function parseAt(at: string | undefined): { path: string; line: number; column?: number } | undefined {
  if (at === undefined) return undefined;
  const m = /^(.+?):(\d+)(?::(\d+))?$/.exec(at.trim());
  if (!m) throw new EngineError('INVALID_ARGUMENT', { name: 'at', reason: 'expected "path:line" or "path:line:column"' });
  return { path: m[1]!, line: Number(m[2]), ...(m[3] ? { column: Number(m[3]) } : {}) };
}

const getDefinition = defineTool({
  name: 'get_symbol_definition',
  title: 'Get symbol definition',
  description:
    "Get a definition's location, signature and source code. Other definitions of the same name are listed as alternatives. " +
    '`at` (a use) lets a language server pick the one meant; `implementations` lists what implements an interface or overrides a method. ' +
    'Example: {"symbol_id": "src/store/database.ts#IndexStore.open@37"}',
  input: {
    symbol_id: symbolId,
    at: z.string().min(3).max(1100).optional().describe('A use of it: "path:line[:column]".'),
    implementations: z.boolean().default(false).describe('Also list implementation ids (language server).'),
  },
  readOnly: true,
  bound: { lines: firstLinesOfText({ moveEndLine: false }) },
  output: symbolSchema.extend({ language: z.string(), text: z.string(), truncated: z.boolean(), alternatives: z.array(z.string()), resolution: z.enum(['lsp', 'name']), implementations: z.array(z.string()).optional() }),
  render: renderDefinition,
  handler: async (args, ctx) => {
    const def = await ctx.engine.symbol(args.symbol_id, { at: parseAt(args.at), implementations: args.implementations });
    const warnings = def.truncated ? ['definition cut to its first 200 lines: read_file reads the rest'] : [];
    if (def.fallback) warnings.push(`resolved by name, not by a language server: ${def.fallback}`);
    if (def.implementationsFallback) warnings.push(`implementations need a language server: ${def.implementationsFallback}`);
    const implementations = def.implementations ? { implementations: def.implementations } : {};
    return {
      data: { ...toSymbol(def.symbol), language: def.symbol.language, text: def.text, truncated: def.truncated, alternatives: def.alternatives, resolution: def.resolution, ...implementations },
      warnings,
    };
  },
});

const getReferences = defineTool({
  name: 'get_references',
  title: 'Get references',
  description:
    'Find where a symbol is used: definitions, calls, imports and other uses, then mentions in comments and docs, grouped by file. ' +
    'By type if a language server runs (resolution "lsp"), else by name. Example: {"symbol_id": "parseConfig", "limit": 20}',
  input: { symbol_id: symbolId, limit: limitArg(200, 50, 'References') },
  readOnly: true,
  bound: { list: 'files', label: (f) => String((f as { path: string }).path) },
  output: z.looseObject({
    name: z.string(),
    total: z.number().int(),
    truncated: z.boolean(),
    resolution: z.enum(['lsp', 'name']),
    files: z.array(z.looseObject({ path: z.string(), references: z.array(z.looseObject({ line: z.number().int(), column: z.number().int(), kind: z.string(), text: z.string() })) })),
  }),
  render: renderReferences,
  handler: async (args, ctx) => {
    const parsed = parseSymbolId(args.symbol_id);
    // an id with a path must name a definition; a plain name is looked up as is
    if (parsed.path !== undefined) await ctx.engine.symbol(args.symbol_id, { maxLines: 1 });
    const refs = await ctx.engine.references(args.symbol_id, { limit: args.limit });
    const files = refs.files.map((f) => ({ path: f.path, references: f.references.map((r) => ({ line: r.line, column: r.column, kind: r.kind, text: r.text })) }));
    const resolution = refs.resolution ?? 'name';
    const warnings = resolution === 'lsp' ? [] : ['matched by name, not type-resolved: same-named symbols elsewhere are included'];
    if (refs.fallback) warnings.push(`no language server answer: ${refs.fallback}`);
    if (refs.parseCapped) warnings.push(`more references exist: the search stops after parsing ${refs.parsed} files`);
    else if (refs.truncated) warnings.push(`more references exist than the ${args.limit} returned`);
    return { data: { name: refs.name, total: refs.total, truncated: refs.truncated, resolution, files }, warnings };
  },
});

export const symbolTools: readonly ToolDefinition[] = [searchSymbolsTool, getDefinition, getReferences];
