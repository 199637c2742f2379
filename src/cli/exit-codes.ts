import type { ErrorCode } from '../index.js';

/** Process exit codes, derived from error codes. Documented in the README's CLI reference. */
export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3, locked: 4, database: 5, denied: 6, confirm: 7 } as const;

const BY_CODE: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: EXIT.usage,
  QUERY_EMPTY: EXIT.usage,
  QUERY_TOO_LONG: EXIT.usage,
  CONFIG_INVALID: EXIT.usage,
  ROOT_MISMATCH: EXIT.usage,
  ROOT_NOT_FOUND: EXIT.notFound,
  ROOT_NOT_DIRECTORY: EXIT.notFound,
  INDEX_NOT_FOUND: EXIT.notFound,
  PATH_OUTSIDE_ROOT: EXIT.notFound,
  INDEX_LOCKED: EXIT.locked,
  DB_LOCKED: EXIT.locked,
  DB_CORRUPT: EXIT.database,
  DB_TOO_NEW: EXIT.database,
  DB_OPEN_FAILED: EXIT.database,
  FILE_NOT_FOUND: EXIT.notFound,
  SYMBOL_NOT_FOUND: EXIT.notFound,
  PATH_DENIED: EXIT.denied,
  TOKEN_INVALID: EXIT.denied,
  PATCH_INVALID: EXIT.usage,
  PATCH_CONFLICT: EXIT.usage,
  CONFIRMATION_REQUIRED: EXIT.confirm,
  TOO_LARGE: EXIT.usage,
  EMBEDDING_UNAVAILABLE: EXIT.failure,
  EMBEDDING_FAILED: EXIT.failure,
  MODEL_NOT_FOUND: EXIT.notFound,
  MODEL_INVALID: EXIT.failure,
  IO_ERROR: EXIT.failure,
  CLOSED: EXIT.failure,
  INTERNAL: EXIT.failure,
  LLM_NOT_CONFIGURED: EXIT.usage,
  LLM_FAILED: EXIT.failure,
  LLM_BAD_OUTPUT: EXIT.failure,
  LLM_BUDGET_EXHAUSTED: EXIT.failure,
  CANCELLED: EXIT.failure,
  LSP_FAILED: EXIT.failure,
  LSP_TIMEOUT: EXIT.failure,
  COLLECTION_NOT_FOUND: EXIT.notFound,
  COLLECTION_EXISTS: EXIT.usage,
  COLLECTION_REGISTRY_CORRUPT: EXIT.database,
  TEAM_DB_TOO_NEW: EXIT.database,
  TEAM_DB_FAILED: EXIT.database,
  REPO_NOT_FOUND: EXIT.notFound,
  PUSH_INVALID: EXIT.usage,
  REVISION_NOT_OPEN: EXIT.usage,
  AUTH_REQUIRED: EXIT.denied,
  ACCESS_DENIED: EXIT.denied,
  SERVER_FAILED: EXIT.failure,
};

export function exitCodeFor(code: ErrorCode): number {
  return BY_CODE[code];
}
