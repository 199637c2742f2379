/**
 * The error catalogue. Codes are part of the public API: never rename one, only add.
 * Each entry maps a SCREAMING_CASE code to a message template (`{name}` placeholders are
 * filled from the error's data) and an optional hint a user can act on.
 */
export const errorCatalogue = {
  ROOT_NOT_FOUND: { message: 'project root does not exist: {root}', hint: 'pass an existing directory' },
  ROOT_NOT_DIRECTORY: { message: 'project root is not a directory: {root}', hint: 'pass a directory, not a file' },
  ROOT_MISMATCH: {
    message: 'the index {db} belongs to {stored}, not to {root}',
    hint: 'omit DIR (or --root) to use the root stored in the index, or pass --rebuild with DIR to re-root the index on purpose',
  },
  INDEX_NOT_FOUND: {
    message: 'no index at {db}',
    hint: 'run `scry index DIR` first, or pass --db for an existing index',
  },
  INDEX_LOCKED: {
    message: 'another scry process (pid {pid}) is writing this index',
    hint: 'wait for it to finish; a lock whose owner died is recovered automatically',
  },
  DB_LOCKED: {
    message: 'the database is locked by another connection: {db}',
    hint: 'close the other program holding a write transaction on it, then retry',
  },
  DB_CORRUPT: {
    message: 'the index database is corrupt or not a scry database: {db}',
    hint: 'run `scry index --rebuild` to recreate it (the source files are untouched)',
  },
  DB_TOO_NEW: {
    message: 'the index was written by a newer scry (schema {found}, this build knows {supported}): {db}',
    hint: 'upgrade scry, or run `scry index --rebuild` to recreate the index with this version',
  },
  DB_OPEN_FAILED: { message: 'cannot open the index database {db}: {reason}' },
  QUERY_EMPTY: {
    message: 'the query has no searchable terms',
    hint: 'type words or identifiers, e.g. `scry search "parse config file"`',
  },
  QUERY_TOO_LONG: { message: 'the query is {bytes} bytes; the limit is {limit}' },
  INVALID_ARGUMENT: { message: 'invalid argument {name}: {reason}' },
  CONFIG_INVALID: { message: 'invalid configuration in {source}: {reason}' },
  PATH_OUTSIDE_ROOT: { message: 'path resolves outside the project root: {path}' },
  IO_ERROR: { message: 'i/o error on {path}: {reason}' },
  CLOSED: { message: 'the engine is closed' },
  FILE_NOT_FOUND: { message: 'no such file in the project: {path}', hint: 'paths are relative to the project root; list_files or `scry status` shows what is indexed' },
  PATH_DENIED: { message: 'access to {path} is refused: {reason}', hint: 'secrets, build output and ignored files are outside what scry reads or writes' },
  SYMBOL_NOT_FOUND: { message: 'no symbol matches {id}', hint: 'take ids from search_symbols (`path#Name@line`), or pass a plain name' },
  PATCH_INVALID: { message: 'malformed change: {reason}' },
  PATCH_CONFLICT: { message: 'the change does not apply to {path}: {reason}', hint: 'read the file again and rebuild the change against its current text' },
  CONFIRMATION_REQUIRED: { message: 'the change is staged, not applied: it needs a confirmation token for hash {hash}', hint: 'show the diff to the user; the host mints a token (engine.mintConfirmationToken) and calls again with it' },
  TOKEN_INVALID: { message: 'confirmation token rejected: {reason}', hint: 'tokens are single-use, expire, and are bound to one workspace and optionally one change hash' },
  EMBEDDING_UNAVAILABLE: {
    message: 'the embedding provider {provider} is unavailable: {reason}',
    hint: 'check that it runs and that embed.* in the config points at it; search stays lexical meanwhile',
  },
  EMBEDDING_FAILED: { message: 'the embedding provider {provider} failed: {reason}', hint: 'search stays lexical meanwhile; `scry embed` resumes where it stopped' },
  MODEL_NOT_FOUND: { message: 'no model {model} in {dir}', hint: 'pull it first: `scry models pull NAME`, or set embed.onnx.modelDir to a model directory' },
  MODEL_INVALID: { message: 'model {model} failed verification: {reason}', hint: 'pull it again: `scry models pull NAME`' },
  TOO_LARGE: { message: '{what} is too large: {size} {unit}; the limit is {limit}' },
  INTERNAL: { message: 'internal error: {reason}', hint: 'please report this with the command you ran' },
  LLM_NOT_CONFIGURED: { message: 'no chat model is configured for {command}', hint: 'add an "llm" section to scry.config.json: {"llm": {"api": "ollama", "baseUrl": "http://127.0.0.1:11434", "model": "qwen2.5-coder:7b"}}' },
  LLM_FAILED: { message: 'the chat model at {url} failed: {reason}', hint: 'check that the endpoint runs and serves the configured model (llm.baseUrl, llm.model)' },
  LLM_BAD_OUTPUT: { message: 'the chat model answered with something scry cannot use: {reason}', hint: 'try again, or a model that follows tool-call instructions (llm.toolCalls "json" for models without native tool calls)' },
  LLM_BUDGET_EXHAUSTED: { message: 'no cited answer within {limit}: {reason}', hint: 'ask a narrower question, or raise llm.maxRounds / llm.maxTokens' },
  CANCELLED: { message: '{what} was cancelled' },
  LSP_FAILED: { message: 'the language server {server} failed: {reason}', hint: 'see `scry status` (language servers) for the command and the install hint; results fall back to names' },
  LSP_TIMEOUT: { message: 'the language server {server} did not answer {method} within {ms} ms', hint: 'raise lsp.timeoutMs in scry.config.json; results fall back to names meanwhile' },
  COLLECTION_NOT_FOUND: { message: 'no collection named {name}', hint: '`scry collection list` shows the registered collections; `scry collection add NAME DIR` registers one' },
  COLLECTION_EXISTS: { message: 'a collection named {name} already exists (root {root})', hint: 'choose another name, or `scry collection remove NAME` first' },
  COLLECTION_REGISTRY_CORRUPT: {
    message: 'the collection registry {path} cannot be read: {reason}',
    hint: 'fix or delete the file by hand (scry never resets it); the indexes it names are untouched',
  },
  TEAM_DB_TOO_NEW: {
    message: 'the team database was migrated by a newer scry (schema {found}, this build knows {supported})',
    hint: 'upgrade scry on this server; a team database is never migrated down',
  },
  TEAM_DB_FAILED: { message: 'the team database failed: {reason}', hint: 'check that PostgreSQL runs and that the --db URL (user, database, host) is right' },
  REPO_NOT_FOUND: { message: 'no repository named {repo} on this server', hint: 'push it first: `scry push --server URL --repo NAME`' },
  PUSH_INVALID: { message: 'the push was refused: {reason}', hint: 'nothing of it was applied; the previous revision is still served. Push again from a fresh index' },
  REVISION_NOT_OPEN: { message: 'revision {revision} of {repo} is not open for writing ({state})', hint: 'begin a new revision and push again' },
  AUTH_REQUIRED: { message: 'no valid bearer token: {reason}', hint: 'send `Authorization: Bearer TOKEN` with a token from serve.tokens (or SCRY_SERVE_TOKENS) on the server; `scry push` takes --token or SCRY_TOKEN' },
  ACCESS_DENIED: { message: 'this token may not {action} {repo}', hint: 'ask the server operator to add the repository to the token\'s "{action}" list in serve.tokens' },
  SERVER_FAILED: { message: 'the scry server at {url} failed: {reason}', hint: 'check --server and that `scry serve` runs there' },
} as const satisfies Record<string, { message: string; hint?: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export const ERROR_CODES = Object.keys(errorCatalogue) as readonly ErrorCode[];

export type ErrorData = Readonly<Record<string, unknown>>;

function fill(template: string, data: ErrorData): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    key in data ? String(data[key]) : whole,
  );
}

/** An error with a stable code from the catalogue, the only error type scry throws on purpose. */
export class EngineError extends Error {
  readonly code: ErrorCode;
  readonly data: ErrorData;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, data: ErrorData = {}, options?: { cause?: unknown; hint?: string }) {
    const entry: { message: string; hint?: string } = errorCatalogue[code];
    super(fill(entry.message, data), options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'EngineError';
    this.code = code;
    this.data = data;
    this.hint = options?.hint ?? entry.hint;
  }
}

export function isEngineError(err: unknown, code?: ErrorCode): err is EngineError {
  return err instanceof EngineError && (code === undefined || err.code === code);
}
