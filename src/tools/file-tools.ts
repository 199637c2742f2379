import { z } from 'zod';
import { isEngineError, type Engine, type SearchResult } from '../index.js';
import { firstLinesOfText } from './bound.js';
import { defineTool, type ToolDefinition } from './tool.js';

const readFile = defineTool({
  name: 'read_file',
  title: 'Read file',
  description:
    'Read lines of a project file as it is on disk now, to quote exact code instead of guessing. ' +
    'Only files the index covers (no secrets, build output or ignored files). ' +
    'Example: {"path": "src/config/resolve.ts", "start_line": 40, "end_line": 90}',
  input: {
    path: z.string().min(1).max(1024).describe('Path relative to the project root.'),
    start_line: z.number().int().min(1).default(1).describe('First line, 1-based.'),
    end_line: z.number().int().min(1).optional().describe('Last line, inclusive (default: end of file).'),
    max_bytes: z.number().int().min(1024).max(200_000).default(50_000).describe('Byte budget; the slice ends at the last whole line that fits.'),
  },
  readOnly: true,
  bound: { lines: firstLinesOfText({ moveEndLine: true }) },
  handler: async (args, ctx) => {
    const slice = await ctx.engine.readFile(args.path, { startLine: args.start_line, endLine: args.end_line, maxBytes: args.max_bytes });
    const data = {
      path: slice.path,
      language: slice.language,
      start_line: slice.startLine,
      end_line: slice.endLine,
      total_lines: slice.totalLines,
      truncated: slice.truncated,
      sha256: slice.sha256,
      text: slice.text,
    };
    const more = slice.endLine < (args.end_line ?? slice.totalLines);
    return { data, warnings: more ? [`stopped at line ${slice.endLine} of ${slice.totalLines}: call again with start_line ${slice.endLine + 1}`] : [] };
  },
});

const listFiles = defineTool({
  name: 'list_files',
  title: 'List files',
  description:
    'List indexed files with language and size, in path order. Narrow with a glob; never ask for the whole repository at once. ' +
    'Example: {"glob": "src/**/*.ts", "limit": 100}',
  input: {
    glob: z.string().min(1).max(512).optional().describe('Glob or directory prefix, e.g. "**/*.py", "docs/", "*.md".'),
    limit: z.number().int().min(1).max(500).default(200).describe('Files to return (1-500).'),
    include_hidden: z.boolean().default(false).describe('Include paths under dot-directories such as .github/.'),
  },
  readOnly: true,
  bound: { list: 'files', label: (f) => String((f as { path: string }).path) },
  handler: async (args, ctx) => {
    const listing = await ctx.engine.listFiles({ glob: args.glob, limit: args.limit, includeHidden: args.include_hidden });
    const files = listing.files.map((f) => ({ path: f.path, language: f.language, lines: f.lineCount, bytes: f.size }));
    const warnings = listing.total > files.length ? [`${listing.total} files match; showing ${files.length}: narrow the glob or raise limit`] : [];
    return { data: { total: listing.total, files }, warnings };
  },
});

/** A chunk of context: a search hit with its full text read from disk. */
interface ContextChunk {
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly symbol?: string;
  readonly score: number;
  readonly chunk_hash: string;
  readonly text: string;
}

/** Two hits of one file that overlap or touch: the second adds nothing a merged read would not. */
const overlaps = (a: SearchResult, b: SearchResult): boolean => a.path === b.path && a.startLine <= b.endLine + 1 && b.startLine <= a.endLine + 1;

/**
 * The best hits, whole, in rank order, until the byte budget is spent; the last one is cut at a
 * line boundary if it does not fit. The plain top-k packer, until a context packer exists.
 */
async function packTopHits(engine: Engine, hits: readonly SearchResult[], maxChunks: number, maxBytes: number): Promise<{ chunks: ContextChunk[]; bytes: number; cut: boolean }> {
  const chunks: ContextChunk[] = [];
  const taken: SearchResult[] = [];
  let bytes = 0;
  let cut = false;
  for (const hit of hits) {
    if (chunks.length >= maxChunks || bytes >= maxBytes) break;
    if (taken.some((t) => overlaps(t, hit))) continue;
    let text: string;
    let endLine: number;
    try {
      const slice = await engine.readFile(hit.path, { startLine: hit.startLine, endLine: hit.endLine, maxBytes: Math.max(1, maxBytes - bytes) });
      text = slice.text;
      endLine = slice.endLine;
      if (slice.truncated) cut = true;
    } catch (err) {
      // deleted or changed since it was indexed: skip it, the next hit may do
      if (isEngineError(err)) continue;
      throw err;
    }
    const size = Buffer.byteLength(text, 'utf8');
    if (size > maxBytes - bytes) break;
    taken.push(hit);
    bytes += size;
    chunks.push({ path: hit.path, start_line: hit.startLine, end_line: endLine, ...(hit.symbol ? { symbol: hit.symbol } : {}), score: Math.round(hit.score * 1000) / 1000, chunk_hash: hit.chunkHash, text });
  }
  return { chunks, bytes, cut };
}

const retrieveContext = defineTool({
  name: 'retrieve_context',
  title: 'Retrieve context',
  description:
    'Get the code most relevant to a task, as whole chunks with citations, within a byte budget: one call instead of search + several reads. ' +
    'Give current_path to also get an outline of the file being edited. ' +
    'Example: {"query": "add a timeout to the HTTP client", "current_path": "src/net/client.ts", "max_chunks": 6}',
  input: {
    query: z.string().min(1).max(16_384).describe('The task or question, in words and identifiers.'),
    current_path: z.string().min(1).max(1024).optional().describe('The file being edited, if any: its outline is included.'),
    language: z.string().min(1).max(40).optional().describe('Only chunks in this language.'),
    max_chunks: z.number().int().min(1).max(20).default(8).describe('Chunks to return at most (1-20).'),
    max_total_bytes: z.number().int().min(4096).max(200_000).default(60_000).describe('Byte budget for all chunk texts together.'),
  },
  readOnly: true,
  bound: { list: 'chunks', label: (c) => `${(c as ContextChunk).path}:${(c as ContextChunk).start_line}-${(c as ContextChunk).end_line}` },
  handler: async (args, ctx) => {
    const warnings: string[] = [];
    const response = await ctx.engine.search(args.query, { limit: Math.min(args.max_chunks * 3, 60), language: args.language, signal: ctx.signal });
    const packed = await packTopHits(ctx.engine, response.results, args.max_chunks, args.max_total_bytes);
    if (packed.cut) warnings.push('a chunk was cut at a line boundary to fit max_total_bytes');
    let currentFile: Record<string, unknown> | undefined;
    if (args.current_path) {
      try {
        const o = await ctx.engine.outline(args.current_path);
        currentFile = {
          path: o.path,
          language: o.language,
          symbols: o.symbols.slice(0, 50).map((s) => ({ name: s.container ? `${s.container}.${s.name}` : s.name, kind: s.kind, line: s.startLine, signature: s.signature })),
          imports: o.imports.filter((i) => i.resolved).slice(0, 30).map((i) => i.resolved),
          imported_by: o.importedBy.slice(0, 30).map((i) => i.path),
          tests: (o.isTest ? o.testedFiles : o.tests).slice(0, 10),
        };
      } catch (err) {
        if (!isEngineError(err)) throw err;
        warnings.push(`current_path: ${err.message}`);
      }
    }
    if (packed.chunks.length === 0) warnings.push('nothing relevant found: try other words or search_text');
    return { data: { ...(currentFile ? { current_file: currentFile } : {}), chunks: packed.chunks, total_bytes: packed.bytes, packer: 'top-k' }, warnings };
  },
});

export const fileTools: readonly ToolDefinition[] = [readFile, listFiles, retrieveContext];
