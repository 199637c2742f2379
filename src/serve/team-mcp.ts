import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCRequest, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { isEngineError } from '../core/errors.js';
import type { AccessControl, Principal } from './access.js';
import { checkRepoName, parseRepoList } from './access.js';
import type { TeamStore } from '../team/team-store.js';
import { DEFAULT_LIST_FILES, DEFAULT_READ_BYTES, listFilesFor, MAX_LIST_FILES, MAX_READ_BYTES, readFileFor } from './file-routes.js';
import { MAX_API_RESULTS, searchFor, servedRepos } from './search-route.js';
import { DEFAULT_SYMBOLS, MAX_SYMBOLS, searchSymbolsFor, SYMBOL_KIND_NAMES } from './symbol-route.js';
import { MAX_TEXT_MATCHES, searchTextFor } from './text-route.js';

const repos = z
  .array(z.string().min(1).max(128))
  .max(100)
  .optional()
  .describe('Repositories to search, by name, e.g. ["api", "web"] (default: every repository your token may read; list_repositories names them).');

const oneRepo = z.string().min(1).max(200).describe('The repository, by name (list_repositories names them).');

const query = z.string().min(1).max(16_384).describe('What you are looking for: words, identifiers, an error message, or a whole issue text.');
const limit = z.number().int().min(1).max(MAX_API_RESULTS).optional().describe(`Results (1-${MAX_API_RESULTS}, default 10).`);

/** The read tools of the team server: the local server's search tools, each taking the repositories as an argument. */
const TEAM_TOOLS = {
  search_code: {
    title: 'Search code across team repositories',
    description:
      'Find the code that implements something in the team index: ranked chunks (functions, classes, config blocks), each naming its repository, path and lines. ' +
      'Use natural language or identifiers. Example: {"query": "where is the retry delay computed", "repos": ["api"], "limit": 5}.',
    input: z
      .object({
        query,
        repos,
        language: z.string().min(1).max(40).optional().describe('Only this language, e.g. "typescript", "python".'),
        paths: z.array(z.string().min(1).max(512)).max(20).optional().describe('Only paths matching these globs or directory prefixes, e.g. ["src/**/*.ts"].'),
        limit,
      })
      .strict(),
    types: ['code', 'config'],
  },
  search_docs: {
    title: 'Search documentation across team repositories',
    description: 'Search documentation and prose (Markdown, READMEs, guides) by heading-sized sections in the team index. Example: {"query": "how to configure the database path", "repos": ["api"]}.',
    input: z.object({ query, repos, limit }).strict(),
    types: ['docs', 'text'],
  },
  search_text: {
    title: 'Find exact text across team repositories',
    description:
      'Every line containing a literal string (or a regex with "regex": true) in the team index, by repository, path and line: for identifiers, error messages, config keys. ' +
      'Smart case unless "case_sensitive" is given. Example: {"pattern": "ECONNRESET", "repos": ["api"]}.',
    input: z
      .object({
        pattern: z.string().min(1).max(1024).describe('The literal text, or a JavaScript regular expression with "regex": true (one line at a time).'),
        repos,
        regex: z.boolean().optional().describe('Treat the pattern as a regular expression (default false).'),
        case_sensitive: z.boolean().optional().describe('Exact case (true) or ignore case (false); default: ignore case unless the pattern has an uppercase letter.'),
        paths: z.array(z.string().min(1).max(512)).max(20).optional().describe('Only paths matching these globs or directory prefixes.'),
        limit: z.number().int().min(1).max(MAX_TEXT_MATCHES).optional().describe(`Matching lines (1-${MAX_TEXT_MATCHES}, default 30).`),
      })
      .strict(),
    types: [],
  },
  search_symbols: {
    title: 'Search symbols across team repositories',
    description:
      'Find definitions (functions, classes, methods, types...) by name in the team index: exact, then prefix, then close spellings; "Foo.bar" finds bar inside Foo. ' +
      'Only definitions that head a chunk of their own are known (the team index keeps chunks, not the symbol table). Example: {"name": "openDatabase", "repos": ["api"], "kind": "function"}.',
    input: z
      .object({
        name: z.string().min(1).max(200).describe('Symbol name or qualified name, e.g. "IndexStore" or "IndexStore.open".'),
        repos,
        kind: z.enum(SYMBOL_KIND_NAMES).optional().describe('Only this kind of definition (default any).'),
        limit: z.number().int().min(1).max(MAX_SYMBOLS).optional().describe(`Definitions (1-${MAX_SYMBOLS}, default ${DEFAULT_SYMBOLS}).`),
      })
      .strict(),
    types: [],
  },
  read_file: {
    title: 'Read a file of a team repository',
    description:
      'Lines of one file of a repository as last pushed (its committed head), to quote exact code instead of guessing. ' +
      'Example: {"repo": "api", "path": "src/config/resolve.ts", "start_line": 40, "end_line": 90}.',
    input: z
      .object({
        repo: oneRepo,
        path: z.string().min(1).max(1024).describe('Path relative to the repository root, as search results name it.'),
        start_line: z.number().int().min(1).optional().describe('First line, 1-based (default 1).'),
        end_line: z.number().int().min(1).optional().describe('Last line, inclusive (default: end of file).'),
        max_bytes: z.number().int().min(1024).max(MAX_READ_BYTES).optional().describe(`Byte budget (default ${DEFAULT_READ_BYTES}); the slice ends at the last whole line that fits.`),
      })
      .strict(),
    types: [],
  },
  list_files: {
    title: 'List files of a team repository',
    description:
      'Files of a repository as last pushed, with language and size, in path order. Narrow with a glob; page with offset. ' +
      'Example: {"repo": "api", "glob": "src/**/*.ts", "limit": 100}.',
    input: z
      .object({
        repo: oneRepo,
        glob: z.string().min(1).max(512).optional().describe('Glob or directory prefix, e.g. "**/*.py", "docs/", "*.md".'),
        limit: z.number().int().min(1).max(MAX_LIST_FILES).optional().describe(`Files (1-${MAX_LIST_FILES}, default ${DEFAULT_LIST_FILES}).`),
        offset: z.number().int().min(0).optional().describe('Matching files to skip: the next page starts where the last one ended.'),
        include_hidden: z.boolean().optional().describe('Include paths under dot-directories such as .github/ (default false).'),
      })
      .strict(),
    types: [],
  },
  list_repositories: {
    title: 'List team repositories',
    description: 'The repositories of the team index your token may read. Example: {}.',
    input: z.object({}).strict(),
    types: [],
  },
} as const;

type ToolName = keyof typeof TEAM_TOOLS;

function listedTools(): Tool[] {
  return Object.entries(TEAM_TOOLS).map(([name, t]) => {
    const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(t.input, { io: 'input' }) as Record<string, unknown>;
    return { name, title: t.title, description: t.description, inputSchema: inputSchema as Tool['inputSchema'], annotations: { readOnlyHint: true, openWorldHint: false } };
  });
}

export interface TeamMcpContext {
  readonly store: TeamStore;
  readonly access: AccessControl;
  readonly principal: Principal;
  readonly version: string;
}

function envelope(ok: boolean, data: unknown, error: string | null): CallToolResult {
  // read_file and list_files answer warnings (where to continue) beside their data: the envelope carries them in meta, as the local tools do
  const warned = ok && typeof data === 'object' && data !== null && Array.isArray((data as { warnings?: unknown }).warnings);
  const { warnings = [], ...rest } = warned ? (data as { warnings: string[] }) : { warnings: [] };
  const body = { ok, data: warned ? rest : data, error, meta: { truncated: false, warnings } };
  return { content: [{ type: 'text', text: JSON.stringify(body, null, 1) }], structuredContent: body, isError: !ok };
}

async function call(name: ToolName, args: unknown, ctx: TeamMcpContext, signal: AbortSignal): Promise<unknown> {
  if (name === 'list_repositories') {
    TEAM_TOOLS.list_repositories.input.parse(args ?? {});
    return { repositories: ctx.access.readable(ctx.principal, undefined, await servedRepos(ctx.store)) };
  }
  if (name === 'search_symbols') {
    const a = TEAM_TOOLS.search_symbols.input.parse(args ?? {});
    return searchSymbolsFor(ctx.store, ctx.access, ctx.principal, { name: a.name, repos: a.repos ? parseRepoList(a.repos) : undefined, kind: a.kind ?? 'any', limit: a.limit ?? DEFAULT_SYMBOLS });
  }
  if (name === 'read_file') {
    const a = TEAM_TOOLS.read_file.input.parse(args ?? {});
    checkRepoName(a.repo);
    return readFileFor(ctx.store, ctx.access, ctx.principal, { repo: a.repo, path: a.path, startLine: a.start_line, endLine: a.end_line, maxBytes: a.max_bytes });
  }
  if (name === 'list_files') {
    const a = TEAM_TOOLS.list_files.input.parse(args ?? {});
    checkRepoName(a.repo);
    return listFilesFor(ctx.store, ctx.access, ctx.principal, { repo: a.repo, glob: a.glob ? [a.glob] : undefined, limit: a.limit, offset: a.offset, includeHidden: a.include_hidden });
  }
  if (name === 'search_text') {
    const t = TEAM_TOOLS.search_text.input.parse(args ?? {});
    const request = { pattern: t.pattern, repos: t.repos ? parseRepoList(t.repos) : undefined, regex: t.regex ?? false, caseSensitive: t.case_sensitive, paths: t.paths, limit: t.limit ?? 30 };
    return searchTextFor(ctx.store, ctx.access, ctx.principal, request, signal);
  }
  const a = TEAM_TOOLS[name].input.parse(args ?? {}) as { query: string; repos?: string[]; limit?: number; language?: string; paths?: string[] };
  const filters = { type: TEAM_TOOLS[name].types, language: a.language, path: a.paths };
  return searchFor(ctx.store, ctx.access, ctx.principal, { query: a.query, repos: a.repos ? parseRepoList(a.repos) : undefined, limit: a.limit ?? 10, filters });
}

/** The envelope error of the catalogue codes the team tools answer with (the local tools' mapping). */
const FAILURE_CODES: Partial<Record<string, string>> = {
  ACCESS_DENIED: 'permission_denied',
  AUTH_REQUIRED: 'permission_denied',
  PATH_OUTSIDE_ROOT: 'permission_denied',
  INVALID_ARGUMENT: 'invalid_arguments',
  FILE_NOT_FOUND: 'not_found',
  REPO_NOT_FOUND: 'not_found',
};

function failure(err: unknown): CallToolResult {
  if (err instanceof z.ZodError) return envelope(false, { message: 'invalid arguments', reason: 'INVALID_ARGUMENT', issues: err.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`) }, 'invalid_arguments');
  if (isEngineError(err)) {
    const code = FAILURE_CODES[err.code] ?? (err.code.startsWith('QUERY_') ? 'invalid_arguments' : 'internal_error');
    return envelope(false, { message: err.message, reason: err.code, ...(err.hint ? { hint: err.hint } : {}) }, code);
  }
  return envelope(false, { message: err instanceof Error ? err.message : String(err), reason: 'INTERNAL' }, 'internal_error');
}

/**
 * One MCP server for one request of one principal (the HTTP transport is stateless): the team
 * tools, every call checked against that principal's read scope, so a token for repository A
 * never sees B through MCP either. Errors come back as envelopes (isError), never as JSON-RPC
 * errors, as in src/mcp.
 */
export function createTeamMcpServer(ctx: TeamMcpContext): Server {
  const server = new Server({ name: 'scry-team', title: 'scry team index', version: ctx.version }, { capabilities: { tools: {} }, instructions: 'Search the team\'s repositories: list_repositories, then search_code (or search_text, search_symbols) with "repos"; read_file and list_files take one "repo".' });
  const tools = listedTools();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as { name?: unknown; arguments?: unknown };
    if (typeof params.name !== 'string' || !(params.name in TEAM_TOOLS)) return envelope(false, { message: `no tool named ${String(params.name)}`, reason: 'INVALID_ARGUMENT', suggestions: Object.keys(TEAM_TOOLS) }, 'not_found');
    try {
      return envelope(true, await call(params.name as ToolName, params.arguments, ctx, extra.signal), null);
    } catch (err) {
      return failure(err);
    }
  };
  return server;
}
