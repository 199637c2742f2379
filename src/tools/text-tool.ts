import * as z from 'zod';
import type { TextSearchResult } from '../index.js';
import { renderTextMatches } from './render/search-text.js';
import { defineTool, limitArg, type ToolDefinition } from './tool.js';

/** One matching line as agents get it. */
export interface ToolTextMatch {
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly text: string;
}

export interface SearchTextData {
  readonly matches: readonly ToolTextMatch[];
  readonly files_with_matches: number;
  readonly files_scanned: number;
  readonly truncated: boolean;
  readonly case_sensitive: boolean;
}

function textWarnings(result: TextSearchResult, limit: number): string[] {
  const out: string[] = [];
  if (result.truncated) out.push(`more than ${limit} matching lines: narrow with paths (e.g. ["src/**"]) or a more specific query, or raise limit (max 200)`);
  if (result.timedOut) out.push(`stopped after the time limit with ${result.filesScanned} files scanned: narrow with paths or a more selective pattern`);
  if (result.filesSkipped > 0) out.push(`${result.filesSkipped} files over 1 MB were not searched by the regex: search them with a literal query`);
  return out;
}

const searchText = defineTool({
  name: 'search_text',
  title: 'Search text',
  description:
    'Find exact text (or a JavaScript regex with regex=true) in the indexed files, like ripgrep: every matching line with path, line and column, in path order. ' +
    'Case is ignored unless the query has an uppercase letter; force it with case_sensitive. ' +
    'Use it for exact identifiers, strings, error messages and TODOs; to find code by what it does, use search_code instead. ' +
    'Example: {"query": "TODO(", "paths": ["src/**"]}',
  input: {
    query: z.string().min(1).max(4096).describe('The exact text to find on one line, or a JavaScript regex when regex is true (e.g. "function\\\\s+\\\\w+\\\\(").'),
    regex: z.boolean().optional().describe('Treat query as a JavaScript regular expression (default false: a literal string). A match never spans lines.'),
    case_sensitive: z.boolean().optional().describe('true: exact case; false: ignore case. Default: smart case (ignore case unless the query has an uppercase letter).'),
    paths: z.array(z.string().min(1).max(512)).max(20).optional().describe('Only files matching these globs or directory prefixes, e.g. ["src/**/*.ts", "docs/"].'),
    limit: limitArg(200, 30, 'Matching lines'),
  },
  readOnly: true,
  bound: { list: 'matches', label: (m) => `${(m as ToolTextMatch).path}:${(m as ToolTextMatch).line}` },
  output: z.looseObject({
    matches: z.array(z.looseObject({ path: z.string(), line: z.number().int(), column: z.number().int(), text: z.string() })),
    files_with_matches: z.number().int(),
    files_scanned: z.number().int(),
    truncated: z.boolean(),
    case_sensitive: z.boolean(),
  }),
  render: renderTextMatches,
  handler: async (args, ctx) => {
    const result = await ctx.engine.searchText(args.query, {
      regex: args.regex,
      caseSensitive: args.case_sensitive,
      paths: args.paths,
      limit: args.limit,
      signal: ctx.signal,
    });
    const data: SearchTextData = {
      matches: result.matches.map((m) => ({ path: m.path, line: m.line, column: m.column, text: m.text })),
      files_with_matches: result.filesWithMatches,
      files_scanned: result.filesScanned,
      truncated: result.truncated,
      case_sensitive: result.caseSensitive,
    };
    return { data, warnings: textWarnings(result, args.limit) };
  },
});

export const textTools: readonly ToolDefinition[] = [searchText];
