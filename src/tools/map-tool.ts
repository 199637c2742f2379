import * as z from 'zod';
import { renderRepoMap } from './render/file-text.js';
import { defineTool, type ToolDefinition } from './tool.js';

/** What repo_map returns. */
export interface RepoMapData {
  readonly text: string;
  readonly total_files: number;
  readonly included_files: number;
  /** Tokens of `text` (o200k). */
  readonly tokens: number;
  readonly truncated?: boolean;
}

/** The map's budget when the call gives no max_tokens. */
const DEFAULT_MAP_TOKENS = 1024;
/**
 * With max_tokens, the map gets what the envelope leaves: its JSON (keys, meta) takes about 50
 * tokens, and escaping the text as a JSON string (`\n`, quotes) costs a little more than the
 * text itself. The runner still cuts whole lines if a map ends up over.
 */
const ENVELOPE_TOKENS = 60;
const JSON_TEXT_FACTOR = 0.9;

/** The map's own budget for a call's max_tokens. */
export function mapBudget(maxTokens: number | undefined): number {
  if (maxTokens === undefined) return DEFAULT_MAP_TOKENS;
  return Math.max(64, Math.floor((maxTokens - ENVELOPE_TOKENS) * JSON_TEXT_FACTOR));
}

const repoMap = defineTool({
  name: 'repo_map',
  title: 'Repository map',
  description:
    'Get a compact map of the repository to orient yourself: its most important code files (ranked by PageRank over imports) grouped by directory, ' +
    'each with its top-level exported signatures; [main] marks entry points, [util] helpers others import. ' +
    'Centre it on a task with focus (files or directories) and query (words, identifiers). max_tokens sizes the map (default 1024). ' +
    'Example: {"query": "retry backoff", "focus": ["src/http/"], "max_tokens": 2000}',
  input: {
    focus: z.array(z.string().min(1).max(512)).max(20).optional().describe('Files or directories to centre the map on, e.g. ["src/store/database.ts", "src/search/"].'),
    query: z.string().min(1).max(1000).optional().describe('Words or identifiers of the task, e.g. "open database WAL": files defining or named by them rank higher.'),
  },
  readOnly: true,
  output: z.looseObject({ text: z.string(), total_files: z.number().int(), included_files: z.number().int(), tokens: z.number().int(), truncated: z.boolean().optional() }),
  render: renderRepoMap,
  bound: {
    lines: {
      field: 'text',
      keep: (data, keep) => {
        const d = data as RepoMapData;
        return { ...d, text: `${d.text.split('\n').slice(0, keep).join('\n')}\n`, truncated: true };
      },
    },
  },
  handler: async (args, ctx) => {
    const map = await ctx.engine.repoMap({ tokens: mapBudget(ctx.maxTokens), focus: args.focus, query: args.query });
    const data: RepoMapData = { text: map.text, total_files: map.totalFiles, included_files: map.includedFiles, tokens: map.tokens };
    return { data, warnings: map.totalFiles === 0 ? ['the index has no code files: list_files and search_docs cover the rest'] : [] };
  },
});

export const mapTools: readonly ToolDefinition[] = [repoMap];
