import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
// Start-up (issue 19): this module loads commander and the error catalogue only. Each command's
// implementation (and through it the engine) is imported when that command runs: see lazyAction.
import { EngineError, isEngineError } from '../core/errors.js';
import { registerModelsCommand } from './commands/models-register.js';
import { registerEmbedCommands } from './commands/embed-register.js';
import { registerCollectionCommand } from './commands/collection-register.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { processIO, type CliIO } from './io.js';
import { lazyAction, type CommandResult } from './lazy-action.js';

const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

const collect = (value: string, previous: string[] = []): string[] => [...previous, ...value.split(',')];

function buildProgram(io: CliIO, result: CommandResult): Command {
  const run = lazyAction.bind(null, io, result);
  const program = new Command('scry')
    .description('Local-first code and documentation retrieval for coding agents.\nIndexes a repository into SQLite (outside the repo) and answers searches with cited chunks.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();

  const dbOption = (): Option => new Option('--db <path>', 'index database to use (default: user cache dir, keyed by the project path); it stores its root, so DIR or --root may be left out, and another root is refused (ROOT_MISMATCH)');

  program
    .command('index')
    .description('Build or refresh the index of DIR (default: the root stored in --db, else the current directory). Incremental: unchanged files are skipped.')
    .argument('[dir]', 'project root; with --db it must be the root stored there (else ROOT_MISMATCH, exit 2), unless --rebuild re-roots the index on purpose')
    .addOption(dbOption())
    .option('--dry-run', 'show what would be indexed and what would be skipped (every secret, and the files whose token literals would be redacted), write nothing')
    .option('--rebuild', 'build the index from scratch beside the old one and swap it in when complete (recovers a corrupt or too-new index; with DIR, re-roots it); searches use the old index until then, and a killed rebuild leaves it as it was')
    .option('--paths <files>', 're-check only these files (changed, added or deleted), without walking the tree (repeatable, comma-separated)', collect)
    .option('--json', 'machine-readable output')
    .action(run(() => import('./commands/index-command.js').then((m) => m.indexCommand)));

  program
    .command('search')
    .description('Search the index. QUERY may be words, identifiers, "quoted phrases", a path, or - to read a long query (issue text, stack trace) from stdin. Builds the index first if there is none.')
    .argument('[query]', 'the query, or - for stdin')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('-k <n>', 'number of results (1-1000, default 10)')
    .option('--files', 'one result per file (its best chunk) instead of one per chunk')
    .option('--path <glob>', 'only paths matching a glob or directory prefix (repeatable, comma-separated)', collect)
    .option('--lang <language>', 'only these languages, e.g. typescript,python (repeatable)', collect)
    .option('--type <type>', 'only these content types: code, docs, config, text (repeatable)', collect)
    .option('--where <field=value>', 'only documents whose field has this value: markdown frontmatter (status=open, tags=auth) or mail headers (from=..., subject=...) (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--no-rerank', 'skip the model reranker configured under `rerank` (structural ranking only)')
    .option('--mode <mode>', 'lexical, vector or hybrid (default: hybrid when the index has vectors for the configured model, by default the built-in one, else lexical; only natural-language questions are blended, the rest rank lexically); lines starting lex:, vec: or hyde: route sub-queries')
    .option('--explain', 'show how each score came about: BM25 (and its query-expansion share), the settings of the query kind (search.ranking.byKind), then each prior, structural step (a chunk the per-file cap moved down says so), file evidence of a long text (its file as a document, a file defining a name the text writes as code) and model score; in vector/hybrid mode each list\'s RRF share; with search.ranking.learned or search.fusion.blend each feature × its weight (and the definition the name match matched); for a long query, the model\'s file prior (search.fusion.filePrior): its file\'s model score and factor, and, with search.fusion.filePriorRecall, a file only the model found says it came from the model\'s file candidates; with search.ranking.fileRanker, each file\'s features × their weights and its rank by the learned file ranker; with search.ranking.companionBoost, a file tied to one of the first files says which and how (companion of x.py: imported by it ×1.40)')
    .option('--json', 'JSON output: {query, results: [{path, startLine, endLine, score, language, kind, symbol, snippet, rerankScore?, fusion?, ranker?, ...}], meta: {mode, semantic, ...}}')
    .option('--no-color', 'no ANSI colour in human output (also when the NO_COLOR environment variable is set)')
    .option('--collection <name>', 'search these collections together (see `scry collection`; "project" is the current project), merged, each result naming its collection (repeatable, comma-separated)', collect)
    .option('--all', 'search the current project and every registered collection together')
    .addHelpText('after', '\nExamples:\n  scry search "where is the sqlite database opened"\n  scry search parseConfig --lang ts -k 5\n  scry search "retry" --path "src/**" --type code --json\n  cat stacktrace.txt | scry search - --files\n  scry search "where is the config read" --mode vector --explain\n  scry search "rotate the signing key" --collection project,runbooks --explain\n  scry search "outage postmortem" --all --json')
    .action(run(() => import('./commands/search-command.js').then((m) => m.searchCommand)));

  program
    .command('status')
    .description('Show what the index holds: files, chunks, symbols, languages, parsers and fallbacks to line windows, last pass, files stored with redacted token literals, capabilities, which optional model runtimes (onnx, use-lite) are installed, and the language servers (off unless lsp.enabled; each found, running, failed with its reason, or missing with its install hint).')
    .argument('[dir]', 'project root (default: the root stored in --db, else the current directory)')
    .addOption(dbOption())
    .option('--json', 'machine-readable output')
    .action(run(() => import('./commands/status-command.js').then((m) => m.statusCommand)));

  program
    .command('symbols')
    .description('Find definitions by name: exact matches first, then names starting with NAME, then names within a few typos. Foo.bar (or Foo::bar, Foo#bar) looks for bar inside Foo. With lsp.enabled, joined by the language servers\' workspace/symbol matches (substring, camel case).')
    .argument('<name>', 'symbol name')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('--kind <kind>', 'only these kinds: function, method, class, interface, struct, enum, type, variable, constant, module (repeatable, comma-separated)', collect)
    .option('-k <n>', 'number of results (1-1000, default 20)')
    .option('--json', 'JSON output: {query, results: [{name, kind, container, signature, path, startLine, startCol, endLine, endCol, exported, match, distance, id}], resolution, servers?, fallback?}')
    .addHelpText('after', '\nExamples:\n  scry symbols openDatabase\n  scry symbols Engine --kind interface,class\n  scry symbols IndexStore.transaction --json')
    .action(run(() => import('./commands/structure-commands.js').then((m) => m.symbolsCommand)));

  program
    .command('refs')
    .description('Find references to an identifier, grouped by file: definitions, calls, imports, other uses, then mentions in comments, strings and docs. By name; by type (a language server) when lsp.enabled is set and the name has one definition.')
    .argument('<name>', 'identifier')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('-k <n>', 'number of references (1-5000, default 50)')
    .option('--json', 'JSON output: {name, files: [{path, language, references: [{line, column, kind, text}]}], total, truncated, resolution}')
    .action(run(() => import('./commands/structure-commands.js').then((m) => m.refsCommand)));

  program
    .command('diagnostics')
    .description("Show compiler and type errors and warnings of a file, or of the project's tsconfig.json without PATH: from the file's language server when lsp.enabled is set, else the TypeScript compiler API for TS/JS. The first line says where they came from, or why there are none.")
    .argument('[path]', 'file relative to the project root')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('-k <n>', 'number of diagnostics (1-1000, default 100)')
    .option('--json', 'JSON output: {path, diagnostics: [{path, line, column, endLine, endColumn, severity, message, code}], total, truncated, source}')
    .action(run(() => import('./commands/structure-commands.js').then((m) => m.diagnosticsCommand)));

  program
    .command('outline')
    .description("Show one indexed file's structure: definitions with signatures, imports (resolved to repository files), the files importing it, and its tests.")
    .argument('<path>', 'file path, relative to the project root')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('--json', 'JSON output (FileOutline)')
    .action(run(() => import('./commands/structure-commands.js').then((m) => m.outlineCommand)));

  program
    .command('related')
    .description('List the files related to one file, ranked: its tests, its imports and importers, and the files calling its definitions or defining what it calls (by name, not type-resolved).')
    .argument('<path>', 'file path, relative to the project root')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('-k <n>', 'number of files (1-200, default 20)')
    .option('--json', 'JSON output: {path, files: [{path, score, reasons, relations: {imports?, importedBy?, test?, callers?, callees?}}], total}')
    .addHelpText('after', '\nExamples:\n  scry related src/store/database.ts\n  scry related src/app.ts -k 5\n  scry related src/util/retry.ts --json')
    .action(run(() => import('./commands/structure-commands.js').then((m) => m.relatedCommand)));

  program
    .command('map')
    .description(
      'Print a map of the repository for an agent\'s context: the most important code files (PageRank over the import graph) grouped by directory, each with its top-level exported signatures, ' +
        'fitted to a token budget. [main] marks entry points (import others, imported by none), [util] leaves others import. Builds the index first if there is none.',
    )
    .argument('[dir]', 'project root (default: current directory, or the root stored in --db)')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (same as DIR)')
    .option('--tokens <n>', 'token budget of the map (o200k; 64-100000, default 1024)')
    .option('--focus <path>', 'centre the map on these files or directories, relative to the project root (repeatable, comma-separated)', collect)
    .option('--query <text>', 'centre the map on the files defining or named by these words and identifiers')
    .option('--json', 'JSON output: {text, files: [{path, rank, role, symbols: [{name, kind, signature}]}], tokens, budget, totalFiles, includedFiles, tookMs}')
    .addHelpText('after', '\nExamples:\n  scry map\n  scry map ~/src/app --tokens 4000\n  scry map --focus src/store --query "open database WAL"\n  scry map --json | jq \'.files[] | select(.role == "main") | .path\'')
    .action(run(() => import('./commands/map-command.js').then((m) => m.mapCommand)));

  program
    .command('eval')
    .description('Measure retrieval quality on the index of DIR with a query set (--queries) or with queries mined from git history (--from-git): file Acc@1/5/10 (all expected files among the first k distinct files), MRR@10, function hit@k (a result overlapping an expected line span), p50/p90 latency. Builds the index first if there is none.')
    .argument('[dir]', 'project root (default: the root stored in --db, else the current directory)')
    .addOption(dbOption())
    .option('--queries <file>', 'JSONL, one query per line: {"query": "...", "expected": [{"path": "src/a.ts", "startLine": 10, "endLine": 40}], "id": "optional", "commit": "optional: search the tree at this commit"}')
    .option('--from-git', "mine queries from the repository's history: informative non-merge commits changing 1-5 source files; the message is the query, the changed files and functions the answer, searched in the tree at the commit's parent")
    .option('--commits <n>', 'with --from-git: queries to mine, newest first (1-1000, default 50)')
    .option('--since <date>', 'with --from-git: only commits after this date (anything git log --since takes)')
    .option('--fast', 'with --from-git: search the current index instead of each parent tree (an approximation: the answer may have moved since)')
    .option('--export <file>', 'with --from-git: write the mined queries as a JSONL query file (with "commit": the parent searched) instead of evaluating; evaluate it later with --queries')
    .option('--cache <dir>', 'keep the index of each commit searched in DIR (<commit>.db) and reuse it on later runs (for --from-git and for query files with "commit"); one full index per commit, so mind the disk')
    .option('--json', 'JSON output: {root, modes: {lexical: {queries, accAt, mrr, functionHitAt, functionQueries, latencyMs}}, queries: [...]}')
    .addHelpText('after', '\nExamples:\n  scry eval --queries eval/queries.jsonl\n  scry eval ../other-repo --queries q.jsonl --json\n  scry eval --from-git --commits 100 --since 2025-01-01\n  scry eval --from-git --fast\n  scry eval --from-git --commits 200 --export mined.jsonl && scry eval --queries mined.jsonl --cache /tmp/scry-eval')
    .action(run(() => import('./commands/eval-command.js').then((m) => m.evalCommand)));

  program
    .command('tool')
    .description('Run one agent tool (the same tools the MCP server offers) and print its JSON envelope {ok, data, error, meta}. Builds the index first if there is none. Write tools only stage their change unless --confirm is given.')
    .argument('<name>', 'tool name (see `scry tools`)')
    .option('--args <json>', 'the arguments as a JSON object, - to read them from stdin, or @FILE (default {})')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('--confirm', 'approve a write tool\'s change for this call (you are the host confirming it); without it the change is only staged')
    .option('--read-only', 'offer the read tools only')
    .addHelpText('after', '\nExit codes follow the envelope: 0 ok, 2 invalid_arguments or too_large, 3 not_found, 6 permission_denied, 7 requires_confirmation, 1 internal_error.\n\nExamples:\n  scry tool search_code --args \'{"query": "open the database", "limit": 3}\'\n  scry tool read_file --args \'{"path": "src/index.ts", "start_line": 1, "end_line": 20}\'\n  scry tool apply_unified_diff --args @change.json            # stage: prints the diff and its hash\n  scry tool apply_unified_diff --args @change.json --confirm  # apply it')
    .action(run(() => import('./commands/tool-command.js').then((m) => m.toolCommand), { json: true }));

  program
    .command('tools')
    .description('List the agent tools with their descriptions; --json adds each tool\'s JSON Schema (what MCP tools/list serves).')
    .option('--json', 'JSON output: {tools: [{name, title, description, readOnly, inputSchema}]}')
    .option('--read-only', 'the read tools only')
    .action(run(() => import('./commands/tool-command.js').then((m) => m.toolsCommand)));

  program
    .command('context')
    .description(
      'The context for a task inside a token budget, as a prompt-ready YAML pack: a window of the current file around the cursor, then the evidence the task needs, each piece cited path:start-end with why it was retrieved. ' +
        'Tasks: fix (failing tests and stack-frame functions from --log, never dropped; code at diagnostics; symbols named in errors; imports; tests; search), test (existing tests, helpers, similar tests), refactor (importers/callers, imports, callees), explain (called functions, referenced types), complete (signatures, then the implementations they or --draft mention), qa (default: signatures the query names, then search).',
    )
    .argument('[query]', 'the task or question (- reads it from stdin); optional when --log, --diff or --current say where to look (not for --task qa)')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('--task <task>', 'fix, test, refactor, explain, qa or complete (default qa)')
    .option('--current <path[:line]>', 'the file being edited and the cursor line: a window of it comes first')
    .option('--selection <start-end>', 'lines selected in --current (e.g. 40-60)')
    .option('--log <file>', 'terminal output of a test run, build or crash to parse for failures (- reads stdin)')
    .option('--diff <file>', 'a unified git diff of the work in progress (- reads stdin)')
    .option('--draft <file>', 'a model draft whose identifiers round 2 of --task complete looks up (- reads stdin)')
    .option('--open <path>', 'a file open in the editor (repeatable, comma-separated)', collect)
    .option('--tokens <n>', 'token budget of the pack (o200k; 256-100000, default 8000)')
    .option('--lang <language>', 'only code in this language')
    .option('--json', 'JSON output: {query, task, candidates, failures, steps, rounds, sections, omitted, tokens, budget, allocations, text}')
    .addHelpText(
      'after',
      '\nExamples:\n  scry context "add a timeout to the HTTP client" --tokens 4000\n  scry context "why does login fail" --current src/auth/login.ts:42\n  pytest 2>&1 | scry context --task fix --log -\n  scry context --task test --current src/db/pool.ts\n  scry context --task explain --current src/db/pool.ts:120 --selection 110-140\n  gh issue view 12 --json body -q .body | scry context - --json',
    )
    .action(run(() => import('./commands/context-command.js').then((m) => m.contextCommand)));

  program
    .command('ask')
    .description(
      'Answer a question about the repository with the chat model configured under `llm` (OpenAI-compatible or Ollama): evidence is retrieved first, the model may call the read-only tools (natively, or through the JSON tool_call protocol with llm.toolCalls "json") for at most llm.maxRounds turns and llm.maxTokens tokens, ' +
        'and an answer is accepted only when it cites path:start-end of evidence the model was shown (otherwise the model is sent back for more; LLM_BUDGET_EXHAUSTED when it never gets there).',
    )
    .argument('[question]', 'the question (- reads it from stdin)')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('--current <path>', 'the file you have open (scopes the first retrieval)')
    .option('--rounds <n>', 'most model turns (1-50, default llm.maxRounds)')
    .option('--verbose', 'each retrieval, model turn and tool call on stderr as it happens')
    .option('--json', 'JSON output: {answer, citations, rounds, tokens, transcript} with every tool call and its result (on LLM_BUDGET_EXHAUSTED: {error, transcript})')
    .addHelpText('after', '\nExamples:\n  scry ask "where is the retry delay computed?"\n  scry ask "how does login fail?" --current src/auth/login.ts --json')
    .action(run(() => import('./commands/agent-commands.js').then((m) => m.askCommand)));

  program
    .command('complete')
    .description(
      'Fill-in-the-middle completion at FILE:LINE[:COL] with the model configured under `llm` (llm.completionModel if set): code near the cursor and repository context retrieved in two rounds (the second for the identifiers of a first draft), ' +
        'streamed to stdout; decoding is the completion preset (temperature 0.2, 128 tokens, stop at a blank line). Ctrl-C cancels.',
    )
    .argument('<at>', 'FILE:LINE[:COL], 1-based; without COL the cursor is at the end of the line')
    .addOption(dbOption())
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .option('--tokens <n>', 'token budget of the prompt (default 4096)')
    .option('--max-tokens <n>', 'most tokens to generate (default 128)')
    .option('--rounds <n>', '1: retrieve once; 2 (default): retrieve again for the draft')
    .option('--stop <text>', 'stop sequence, \\n and \\t escapes allowed (repeatable; replaces the default blank line)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--json', 'JSON output at the end: {path, line, column, text, finish, rounds: [{query, context, promptTokens, text}]}')
    .addHelpText('after', '\nExamples:\n  scry complete src/net/client.ts:42\n  scry complete src/net/client.ts:42:17 --rounds 1 --stop "\\n"')
    .action(run(() => import('./commands/agent-commands.js').then((m) => m.completeCommand)));

  program
    .command('watch')
    .description(
      'Keep the index of DIR (default: current directory) fresh until Ctrl-C: an incremental pass on start (only what changed since the last pass), then one pass per batch of file changes. ' +
        'Exactly one process writes an index: if another scry process already does, this one follows it and takes over when it exits. `scry index` runs meanwhile are handed to the writer.',
    )
    .argument('[dir]', 'project root (default: the root stored in --db, else the current directory)')
    .addOption(dbOption())
    .option('--debounce <ms>', 'quiet time before a changed file is indexed (0-60000, default 500 or config watch.debounceMs)')
    .option('--backend <name>', 'how changes are seen: auto (default), directories (one OS watch per indexed directory), recursive (one OS watch for the tree), poll (a rescan every watch.pollIntervalMs)')
    .option('--json', 'one JSON line per event on stdout: role, watching, pass-start, pass-end, pass-error, warning')
    .addHelpText('after', '\nExamples:\n  scry watch\n  scry watch ~/src/app --debounce 100\n  scry watch --json | jq .type')
    .action(run(() => import('./commands/watch-command.js').then((m) => m.watchCommand)));

  program
    .command('mcp')
    .description(
      'Serve the index as an MCP server for coding agents: over stdio (default; for Claude Code, Cursor and other clients that start the server), or over Streamable HTTP on localhost with --http. ' +
        'Keeps the index of --root fresh while it runs, as `scry watch` does: an incremental pass on start (answers meanwhile come from the index as it stands; the first calls wait only if no index exists yet), then a file watcher. ' +
        'If another scry process already writes this index, the server reads it and takes over writing when that process exits.',
    )
    .option('-C, --root <dir>', 'project root (default: current directory, or the root stored in --db)')
    .addOption(dbOption())
    .option('--http', 'serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (stateless; requests with a non-localhost Host or a cross-origin Origin get 403)')
    .option('--port <n>', 'with --http: TCP port (0 picks a free one; default 7333)')
    .option('--host <host>', 'with --http: loopback address to bind: 127.0.0.1 (default), localhost or ::1')
    .option('--read-only', 'hide the write tools (apply_unified_diff, apply_text_edits); by default they stage changes and return requires_confirmation')
    .option('--allow-writes', 'let write tools apply their changes directly (the server mints a token per call): for clients that ask the user before each write tool call, as Claude Code does')
    .option('--no-watch', 'do not watch files: index once on start (and on request from `scry index`), nothing more')
    .option('--collection <name>', 'also serve these collections (see `scry collection`), each kept fresh like the project; search_code and search_docs then take collections: ["project", NAME] (repeatable, comma-separated)', collect)
    .addHelpText(
      'after',
      '\nstdout carries the MCP protocol in stdio mode; logs go to stderr.\n\nExamples:\n  scry mcp --root ~/src/app\n  claude mcp add scry -- scry mcp --root ~/src/app\n  scry mcp --collection runbooks,mail\n  scry mcp --http --port 7333 --read-only',
    )
    .action(async (flags) => {
      const { mcpCommand } = await import('./commands/mcp-command.js');
      result.code = await mcpCommand(io, flags, VERSION);
    });

  program
    .command('serve')
    .description(
      'Serve a team index (issue 23): many repositories in one PostgreSQL database, filled by `scry push`, searched over HTTP by many clients. Runs the database migrations first (refuses a database a newer scry migrated: TEAM_DB_TOO_NEW). ' +
        'Endpoints: GET /healthz; GET /api/search?q=Q[&repo=R[,R2]][&k=N] (the JSON of `scry search --json`, each result naming its repo); GET /api/search_text?q=PATTERN[&repo=..][&regex=1]; GET /api/read_file?repo=R&path=P[&start=N][&end=M]; GET /api/files?repo=R[&glob=G][&offset=N]; GET /api/symbols?name=N[&repo=R]; GET /api/repos; POST /api/push/* (scry push); MCP Streamable HTTP at /mcp (tools search_code, search_docs, search_text, search_symbols, read_file, list_files and list_repositories, the repositories as an argument). ' +
        'Every request but /healthz needs `Authorization: Bearer TOKEN`; tokens come from serve.tokens in the config file and SCRY_SERVE_TOKENS, each {"read": [repos], "push": [repos]} ("*" = all). Plain HTTP: put a TLS reverse proxy in front for a network.',
    )
    .option('--db <url>', 'the team database: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or ?host=/socket/dir)')
    .option('--port <n>', 'TCP port (0 picks a free one; default 7334)')
    .option('--host <host>', 'interface to bind (default 127.0.0.1; 0.0.0.0 for every interface, behind a TLS proxy)')
    .option('--config <file>', 'JSON file with the "serve" settings: tokens, anonymousRead, maxBodyBytes, maxManifestBytes, maxPushBytes, staleRevisionMs (default: scry.config.json in the current directory)')
    .option('--json', 'print {url, mcp, schema, migratedFrom, tokens} on stdout once listening')
    .addHelpText('after', '\nExamples:\n  SCRY_SERVE_TOKENS=\'{"ci-3f9a6c1e8b7d2a40": {"read": ["*"], "push": ["*"]}}\' scry serve --db postgres://scry@localhost/scry\n  curl -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:7334/api/search?repo=api&q=retry+delay"')
    .action(run(() => import('./commands/serve-command.js').then((m) => m.serveCommandFor(VERSION))));

  program
    .command('push')
    .description(
      'Push the index of DIR to a team server (`scry serve`) as a new revision of repository NAME: brings the local index up to date first (an incremental pass), asks the server which file bodies and postings it lacks, sends only those, then commits. ' +
        'Searches on the server see the previous revision until the commit; a push that fails or is killed leaves the previous revision served (the server drops the unfinished one).',
    )
    .argument('[dir]', 'project root (default: the root stored in --db, else the current directory)')
    .addOption(dbOption())
    .option('--server <url>', 'the team server, e.g. https://scry.example.com')
    .option('--repo <name>', 'repository name on the server (letters, digits, . _ / @ -)')
    .option('--token <token>', 'bearer token with push access to the repository (default: the SCRY_TOKEN environment variable)')
    .option('--batch-kb <n>', 'most KiB of JSON per request (default 4096; keep it under the server\'s serve.maxBodyBytes)')
    .option('--json', 'JSON output: {repo, revision, previous, files, chunks, sent: {chunks, contents, vectors, requests, bytes}, skipped: {chunks, contents}}')
    .addHelpText('after', '\nExamples:\n  SCRY_TOKEN=... scry push --server https://scry.example.com --repo api\n  scry push ~/src/web --server http://127.0.0.1:7334 --repo web --token "$TOKEN" --json')
    .action(run(() => import('./commands/push-command.js').then((m) => m.pushCommand)));

  registerModelsCommand(program, io, result);
  registerEmbedCommands(program, io, result);
  registerCollectionCommand(program, io, result);

  return program;
}

function reportError(io: CliIO, err: EngineError, json: boolean): void {
  if (json) io.err(`${JSON.stringify({ error: { code: err.code, message: err.message, hint: err.hint ?? null } })}\n`);
  else io.err(`scry: error [${err.code}]: ${err.message}\n${err.hint ? `  hint: ${err.hint}\n` : ''}`);
}

/** Runs the CLI; returns the exit code instead of exiting, so tests can call it in-process. */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const result = { code: EXIT.ok as number, json: argv.includes('--json') };
  const program = buildProgram(io, result);
  try {
    await program.parseAsync([...argv]);
    return result.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (isEngineError(err)) {
      reportError(io, err, result.json);
      return exitCodeFor(err.code);
    }
    const wrapped = new EngineError('INTERNAL', { reason: err instanceof Error ? err.message : String(err) }, { cause: err });
    reportError(io, wrapped, result.json);
    return EXIT.failure;
  }
}
