import * as z from 'zod';
import { continuationWarnings, fileSliceData } from '../core/file-slice.js';
import { isEngineError, loadTokenCounter } from '../index.js';
import { firstLinesOfText } from './bound.js';
import { contextRequest, contextTaskArgs } from './context-args.js';
import { renderContext, renderFileList, renderFileSlice } from './render/file-text.js';
import { defineTool, limitArg, type ToolDefinition } from './tool.js';

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
  output: z.looseObject({
    path: z.string(),
    language: z.string(),
    start_line: z.number().int(),
    end_line: z.number().int(),
    total_lines: z.number().int(),
    truncated: z.boolean(),
    sha256: z.string(),
    text: z.string(),
  }),
  render: renderFileSlice,
  handler: async (args, ctx) => {
    const slice = await ctx.engine.readFile(args.path, { startLine: args.start_line, endLine: args.end_line, maxBytes: args.max_bytes });
    return { data: fileSliceData(slice), warnings: continuationWarnings(slice, args.end_line) };
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
    limit: limitArg(500, 200, 'Files'),
    include_hidden: z.boolean().default(false).describe('Include paths under dot-directories such as .github/.'),
  },
  readOnly: true,
  bound: { list: 'files', label: (f) => String((f as { path: string }).path) },
  output: z.looseObject({ total: z.number().int(), files: z.array(z.looseObject({ path: z.string(), language: z.string(), lines: z.number().int(), bytes: z.number().int() })) }),
  render: renderFileList,
  handler: async (args, ctx) => {
    const listing = await ctx.engine.listFiles({ glob: args.glob, limit: args.limit, includeHidden: args.include_hidden });
    const files = listing.files.map((f) => ({ path: f.path, language: f.language, lines: f.lineCount, bytes: f.size }));
    const warnings = listing.total > files.length ? [`${listing.total} files match; showing ${files.length}: narrow the glob or raise limit`] : [];
    return { data: { total: listing.total, files }, warnings };
  },
});

/** One piece of a context pack as the tool returns it (`rank` is kept out of the result). */
interface ContextPiece {
  readonly cite: string;
  readonly kind: string;
  readonly symbols?: readonly string[];
  readonly hashes?: readonly string[];
  readonly why?: string;
  readonly pinned?: true;
  readonly text: string;
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * The pieces ../shared/seeds §17.4.1 allows: the `maxChunks` best-ranked, then, while their text
 * (with `fixedBytes` already taken by the current file) is over `maxBytes`, without the
 * worst-ranked. Display order is kept. Returns the pieces kept and how many were dropped.
 */
export function capPieces<P extends { readonly text: string }>(pieces: readonly P[], ranks: readonly number[], maxChunks: number, maxBytes: number, fixedBytes: number): { kept: P[]; dropped: number } {
  const byRank = pieces.map((_, i) => i).sort((a, b) => ranks[a]! - ranks[b]! || a - b);
  const keep = new Set(byRank.slice(0, maxChunks));
  let bytes = fixedBytes + [...keep].reduce((n, i) => n + utf8(pieces[i]!.text), 0);
  for (let r = Math.min(maxChunks, byRank.length) - 1; r >= 0 && bytes > maxBytes; r--) {
    const i = byRank[r]!;
    keep.delete(i);
    bytes -= utf8(pieces[i]!.text);
  }
  const kept = pieces.filter((_, i) => keep.has(i));
  return { kept, dropped: pieces.length - kept.length };
}

/** The pack budget when the caller gives none: its `max_tokens` minus room for the envelope, or 8,000. */
function packBudget(tokens: number | undefined, maxTokens: number | undefined): number {
  if (tokens !== undefined) return maxTokens === undefined ? tokens : Math.min(tokens, Math.max(256, Math.floor((maxTokens - 200) * 0.8)));
  return maxTokens === undefined ? 8000 : Math.max(256, Math.floor((maxTokens - 200) * 0.8));
}

const retrieveContext = defineTool({
  name: 'retrieve_context',
  title: 'Retrieve context',
  description:
    'Get the context for a task in one call, inside a token budget: a window of the file being edited, then the evidence the task needs, each piece cited path:start-end with why it was retrieved. ' +
    'task: fix (failing tests and stack frames from log, never dropped), test, refactor, explain, complete, qa (default). ' +
    'Example: {"query": "add a timeout to the HTTP client", "current_path": "src/net/client.ts", "current_line": 42, "tokens": 6000}; or {"task": "fix", "log": "<pytest output>"}',
  input: {
    query: z.string().max(16_384).default('').describe('The task or question (may be empty with a task and log, diff, diagnostics or current_path).'),
    current_path: z.string().min(1).max(1024).optional().describe('The file being edited, if any: a window of it around current_line comes first.'),
    current_line: z.number().int().min(1).optional().describe('The cursor line in current_path (default 1).'),
    language: z.string().min(1).max(40).optional().describe('Only code in this language.'),
    tokens: z.number().int().min(256).max(100_000).optional().describe('Token budget of the pack (o200k; default 8000, or what max_tokens leaves).'),
    max_chunks: z.number().int().min(1).max(20).default(8).describe('Most pieces to return (best first).'),
    max_total_bytes: z.number().int().min(4096).max(200_000).default(60_000).describe('Byte budget of the returned text.'),
    ...contextTaskArgs,
  },
  readOnly: true,
  bound: { list: 'pieces', label: (p) => (p as ContextPiece).cite },
  output: z.looseObject({
    current_file: z
      .looseObject({ path: z.string(), start_line: z.number().int(), end_line: z.number().int(), total_lines: z.number().int(), cursor_line: z.number().int().nullable(), text: z.string() })
      .optional(),
    pieces: z.array(z.looseObject({ cite: z.string(), kind: z.string(), symbols: z.array(z.string()).optional(), hashes: z.array(z.string()).optional(), why: z.string().optional(), pinned: z.boolean().optional(), text: z.string() })),
    task: z.string(),
    failures: z.array(z.looseObject({ file: z.string(), line: z.number().int(), kind: z.string(), message: z.string() })).optional(),
    tokens: z.number().int(),
    budget: z.number().int(),
    candidates: z.number().int(),
    packer: z.string(),
  }),
  render: renderContext,
  handler: async (args, ctx) => {
    const warnings: string[] = [];
    const options = contextRequest(args, { tokens: packBudget(args.tokens, ctx.maxTokens), language: args.language, signal: ctx.signal });
    let pack;
    try {
      pack = await ctx.engine.context(args.query, options);
    } catch (err) {
      // a path outside the root is refused outright; a missing or refused file only loses its window
      if (!args.current_path || !isEngineError(err) || !['FILE_NOT_FOUND', 'PATH_DENIED'].includes(err.code)) throw err;
      warnings.push(`current_path: ${err.message}`);
      pack = await ctx.engine.context(args.query, { ...options, current: undefined, selection: undefined });
    }
    const packed = pack.sections.evidence.flatMap((g) => g.pieces);
    const all: ContextPiece[] = packed.map((p) => ({
        cite: `${p.path}:${p.startLine}-${p.endLine}`,
        kind: p.kind,
        ...(p.symbols.length > 0 ? { symbols: p.symbols } : {}),
        ...(p.hashes.length > 0 ? { hashes: p.hashes } : {}),
        ...(p.whys !== undefined && p.whys.length > 0 ? { why: p.whys.join('; ') } : {}),
        ...(p.pinned === true ? { pinned: true as const } : {}),
        text: p.text,
    }));
    const w = pack.sections.workspace.currentFile;
    const current = w ? { path: w.path, start_line: w.startLine, end_line: w.endLine, total_lines: w.totalLines, cursor_line: w.cursorLine ?? null, text: w.text } : undefined;
    const { kept: pieces, dropped } = capPieces(all, packed.map((p) => p.rank), args.max_chunks, args.max_total_bytes, current ? utf8(current.text) : 0);
    let tokens = pack.tokens.total;
    if (dropped > 0) {
      warnings.push(`${dropped} more piece${dropped === 1 ? '' : 's'} left out by max_chunks=${args.max_chunks} / max_total_bytes=${args.max_total_bytes}`);
      // the pack's count less the text of the pieces left out
      const counter = await loadTokenCounter();
      tokens -= all.filter((p) => !pieces.includes(p)).reduce((n, p) => n + counter.count(p.text), 0);
    }
    if (pieces.length === 0) warnings.push('nothing relevant found: try other words or search_text');
    const omitted = pack.omitted.filter((o) => o.section === 'evidence').length;
    if (omitted > 0) warnings.push(`${omitted} more piece${omitted === 1 ? '' : 's'} did not fit the budget of ${pack.budget} tokens`);
    const failures = pack.failures.slice(0, 20).map((f) => ({ file: f.file, line: f.line, kind: f.kind, message: f.message, ...(f.symbol !== undefined ? { symbol: f.symbol } : {}) }));
    return { data: { ...(current ? { current_file: current } : {}), pieces, tokens, budget: pack.budget, candidates: pack.candidates, packer: 'context-pack', task: pack.task, ...(failures.length > 0 ? { failures } : {}) }, warnings };
  },
});

export const fileTools: readonly ToolDefinition[] = [readFile, listFiles, retrieveContext];
