import * as z from 'zod';
import { EngineError, PROJECT_COLLECTION, searchCollections, type CollectionMember, type ContentType, type SearchResponse, type SearchResult } from '../index.js';
import { hitSchema } from './output-schema.js';
import { renderHits, type ToolHit } from './render/search-text.js';
import { defineTool, limitArg, type ToolContext, type ToolDefinition } from './tool.js';

export function toHit(r: SearchResult): ToolHit {
  return {
    path: r.path,
    start_line: r.startLine,
    end_line: r.endLine,
    score: Math.round(r.score * 1000) / 1000,
    language: r.language,
    kind: r.kind,
    ...(r.symbol ? { symbol: r.symbol } : {}),
    ...(r.container ? { container: r.container } : {}),
    ...(r.signature ? { signature: r.signature } : {}),
    snippet: r.snippet,
    chunk_hash: r.chunkHash,
    ...(r.collection !== undefined ? { collection: r.collection } : {}),
    ...(r.cite !== undefined ? { cite: r.cite } : {}),
  };
}

export const hitLabel = (item: unknown): string => {
  const h = item as { path: string; start_line: number; end_line: number };
  return `${h.path}:${h.start_line}-${h.end_line}`;
};

/** What every search result carries besides hits: how the search ran. */
function searchData(response: SearchResponse): { results: ToolHit[]; mode: string; terms: readonly string[] } {
  return { results: response.results.map(toHit), mode: response.meta.mode, terms: response.meta.terms };
}

/** Warnings for a search: lexical only, a requested mode that is not available, words not in the index. */
function searchWarnings(response: SearchResponse, requested?: string): string[] {
  const out: string[] = [];
  if (requested && requested !== response.meta.mode) out.push(`mode ${requested} is not available (${response.meta.semantic}); ran ${response.meta.mode}`);
  const missing = response.meta.droppedTerms.filter((d) => d.reason === 'not_in_index').map((d) => d.raw);
  if (missing.length > 0) out.push(`not in the index: ${missing.slice(0, 10).join(', ')}`);
  if (response.results.length === 0) out.push('no results: try other words, an identifier, or search_text for exact strings');
  return out;
}

const query = z.string().min(1).max(16_384).describe('What you are looking for: words, identifiers, an error message, or a whole issue text.');
const limit = limitArg(50, 5, 'Results');
/** What search_code, search_docs and find_similar return. */
const hitsOutput = z.looseObject({ results: z.array(hitSchema), mode: z.string(), terms: z.array(z.string()) });
const paths = z.array(z.string().min(1).max(512)).max(20).optional().describe('Only paths matching these globs or directory prefixes, e.g. ["src/**/*.ts", "lib/"].');
const language = z.string().min(1).max(40).optional().describe('Only this language, e.g. "typescript", "python", "go".');
const collections = z
  .array(z.string().min(1).max(64))
  .min(1)
  .max(20)
  .optional()
  .describe('Collections to search together, e.g. ["project", "notes"] (default: the project).');

/** The members a `collections` argument names: the project is `ctx.engine`, the others come from `ctx.collections`. */
function membersFor(names: readonly string[], ctx: ToolContext): CollectionMember[] {
  return [...new Set(names)].map((name) => {
    if (name === PROJECT_COLLECTION) return { name, engine: ctx.engine };
    const m = ctx.collections?.find((c) => c.name === name);
    if (!m) throw new EngineError('COLLECTION_NOT_FOUND', { name }, { hint: `this server serves ${[PROJECT_COLLECTION, ...(ctx.collections ?? []).map((c) => c.name)].join(', ')}` });
    return m;
  });
}

interface SearchArgs {
  readonly query: string;
  readonly limit?: number | undefined;
  readonly language?: string | undefined;
  readonly paths?: string[] | undefined;
  readonly collections?: string[] | undefined;
}

type SearchData = ReturnType<typeof searchData>;

/** One search, over the project or (with `collections`) over several collections merged by collection-merge. */
async function runSearch(args: SearchArgs, type: ContentType[], ctx: ToolContext, mode?: string): Promise<{ data: SearchData; warnings: string[] }> {
  const options = { limit: args.limit, language: args.language, path: args.paths, type, signal: ctx.signal };
  if (!args.collections) {
    const response = await ctx.engine.search(args.query, options);
    return { data: searchData(response), warnings: searchWarnings(response, mode) };
  }
  const merged = await searchCollections(membersFor(args.collections, ctx), args.query, options);
  const modes = [...new Set(merged.meta.collections.map((c) => c.mode))];
  const data = { results: merged.results.map(toHit), mode: modes.length === 1 ? modes[0]! : modes.join('+'), terms: [] as readonly string[] };
  const warnings = merged.results.length === 0 ? ['no results in any of these collections: try other words, or search_text for exact strings'] : [];
  return { data, warnings };
}

const searchCode = defineTool({
  name: 'search_code',
  title: 'Search code',
  description:
    'Find the code that implements something: ranked chunks (functions, classes, config blocks) with a snippet and a citation. ' +
    'Use natural language or identifiers; follow up with read_file or get_symbol_definition. For exact strings use search_text. ' +
    'Example: {"query": "where are retries with backoff handled", "language": "typescript"}',
  input: {
    query,
    language,
    paths,
    limit,
    mode: z.enum(['lexical', 'vector', 'hybrid']).optional().describe('Ranking: hybrid when vectors exist, lexical otherwise (the default picks the best available).'),
    collections,
  },
  readOnly: true,
  bound: { list: 'results', label: hitLabel },
  output: hitsOutput,
  render: renderHits,
  handler: async (args, ctx) => {
    return runSearch(args, ['code', 'config'], ctx, args.mode);
  },
});

const searchDocs = defineTool({
  name: 'search_docs',
  title: 'Search documentation',
  description:
    'Search documentation and prose (Markdown, READMEs, guides, text files) by heading-sized sections. ' +
    'Example: {"query": "how to configure the database path"}',
  input: { query, limit, collections },
  readOnly: true,
  bound: { list: 'results', label: hitLabel },
  output: hitsOutput,
  render: renderHits,
  handler: async (args, ctx) => {
    return runSearch(args, ['docs', 'text'], ctx);
  },
});

const findSimilar = defineTool({
  name: 'find_similar',
  title: 'Find similar code',
  description:
    'Find code similar to a snippet: other implementations of a pattern, duplicates, examples of an API in use. ' +
    'Pass exclude_file to skip the file the snippet came from. ' +
    'Example: {"code_snippet": "const db = new Database(path); db.pragma(\'journal_mode = WAL\')", "exclude_file": "src/store/database.ts"}',
  input: {
    code_snippet: z.string().min(1).max(65_536).describe('The code to match (a few lines to a function).'),
    language,
    exclude_file: z.string().min(1).max(512).optional().describe('Leave out results from this path (where the snippet came from).'),
    limit,
  },
  readOnly: true,
  bound: { list: 'results', label: hitLabel },
  output: hitsOutput,
  render: renderHits,
  handler: async (args, ctx) => {
    const response = await ctx.engine.similar(args.code_snippet, { language: args.language, excludeFile: args.exclude_file, limit: args.limit });
    // a vector search when the index has vectors; otherwise shared identifiers, and the reason
    const warnings = response.meta.mode === 'lexical' ? [response.meta.semantic] : [];
    return { data: searchData(response), warnings };
  },
});

export const searchTools: readonly ToolDefinition[] = [searchCode, searchDocs, findSimilar];
