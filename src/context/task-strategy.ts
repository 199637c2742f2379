/**
 * Task-aware retrieval (issue 20; seed 002 "Retrieval strategy", seed 004 §8.1–8.5): what evidence
 * each task gathers, in which order, and why. Data, not code: the engine runs the steps of a task in
 * order and each piece it finds carries its step's `why`; earlier steps rank higher, so a budget
 * gives up the last steps first. Pinned steps are never dropped.
 */

/** What the agent is doing. `qa` is a plain question (the query pack); `complete` runs two rounds. */
export const CONTEXT_TASKS = ['fix', 'test', 'refactor', 'explain', 'qa', 'complete'] as const;
export type ContextTask = (typeof CONTEXT_TASKS)[number];

/**
 * Where a step's evidence comes from:
 * - `failing-tests`: the tests a failure log names (their functions, whole).
 * - `failure-frames`: the functions at the log's stack frames inside the repository.
 * - `diagnostics`: the code at each diagnostic (given, or parsed from a compiler's output).
 * - `error-symbols`: signatures of identifiers the error messages name.
 * - `diff`: the definitions the git diff changes.
 * - `selection-calls`: definitions of the functions the selection (or the function at the cursor) calls.
 * - `referenced-types`: signatures of the types the selection names.
 * - `imports`: signatures of what the current file imports from the repository.
 * - `importers`: the code in other files that uses the current file's definitions (callers).
 * - `callees`: definitions in other files the current file uses.
 * - `tests`: the existing tests of the current file.
 * - `test-helpers`: fixtures and helpers next to those tests (conftest, helpers, fixtures, setup).
 * - `similar-tests`: tests of code like the current file's (search restricted to test files).
 * - `open-files`: definitions in the open files the query names.
 * - `signatures`: signatures of symbols the query names (§8.4 step 2).
 * - `search`: ranked search on the query (with the failure messages when there is no query).
 * - `round-2`: implementations of the identifiers the round-1 evidence, or a model's draft, mentions (§8.5).
 */
export type EvidenceSource =
  | 'failing-tests'
  | 'failure-frames'
  | 'diagnostics'
  | 'error-symbols'
  | 'diff'
  | 'selection-calls'
  | 'referenced-types'
  | 'imports'
  | 'importers'
  | 'callees'
  | 'tests'
  | 'test-helpers'
  | 'similar-tests'
  | 'open-files'
  | 'signatures'
  | 'search'
  | 'round-2';

export interface StrategyStep {
  readonly source: EvidenceSource;
  /** Pieces the step contributes at most. */
  readonly limit: number;
  /** Never dropped from the pack (seed 002 "Pass 3": the failing test and the frames' functions). */
  readonly pinned?: boolean;
  /** `signature`: the definition's signature line only; `chunk`: its code (cut to the piece cap). */
  readonly form: 'chunk' | 'signature';
}

/** The steps of each task, best first. */
export const TASK_STRATEGIES: Readonly<Record<ContextTask, readonly StrategyStep[]>> = {
  // seed 002 /fix: current file with diagnostics and terminal output, symbols named in errors,
  // imports of the current file, related tests, then semantic search
  fix: [
    { source: 'failing-tests', limit: 4, pinned: true, form: 'chunk' },
    { source: 'failure-frames', limit: 6, pinned: true, form: 'chunk' },
    { source: 'diagnostics', limit: 6, form: 'chunk' },
    { source: 'error-symbols', limit: 6, form: 'signature' },
    { source: 'diff', limit: 4, form: 'chunk' },
    { source: 'selection-calls', limit: 4, form: 'chunk' },
    { source: 'imports', limit: 8, form: 'signature' },
    { source: 'tests', limit: 2, form: 'chunk' },
    { source: 'signatures', limit: 8, form: 'signature' },
    { source: 'search', limit: 12, form: 'chunk' },
  ],
  // seed 002 /test: the current file, its existing tests, test helpers, similar tests
  test: [
    { source: 'tests', limit: 4, form: 'chunk' },
    { source: 'test-helpers', limit: 4, form: 'signature' },
    { source: 'similar-tests', limit: 4, form: 'chunk' },
    { source: 'search', limit: 8, form: 'chunk' },
    { source: 'imports', limit: 6, form: 'signature' },
    { source: 'signatures', limit: 6, form: 'signature' },
  ],
  // seed 002 /refactor: imports, importers, callers and callees
  refactor: [
    { source: 'importers', limit: 8, form: 'chunk' },
    { source: 'imports', limit: 8, form: 'signature' },
    { source: 'callees', limit: 6, form: 'signature' },
    { source: 'tests', limit: 2, form: 'chunk' },
    { source: 'signatures', limit: 6, form: 'signature' },
    { source: 'search', limit: 8, form: 'chunk' },
  ],
  // seed 002 /explain: called functions and referenced types; search only as a last resort
  explain: [
    { source: 'selection-calls', limit: 8, form: 'chunk' },
    { source: 'referenced-types', limit: 6, form: 'signature' },
    { source: 'callees', limit: 4, form: 'signature' },
    { source: 'signatures', limit: 6, form: 'signature' },
    { source: 'search', limit: 4, form: 'chunk' },
  ],
  // the plain query pack (seed 004 §8.4): signatures the query names, then search
  qa: [
    { source: 'open-files', limit: 4, form: 'signature' },
    { source: 'signatures', limit: 8, form: 'signature' },
    { source: 'search', limit: 30, form: 'chunk' },
  ],
  // seed 004 §8.5: round 1 signatures and nearest dependencies, round 2 the implementations mentioned
  complete: [
    { source: 'imports', limit: 10, form: 'signature' },
    { source: 'selection-calls', limit: 4, form: 'signature' },
    { source: 'signatures', limit: 6, form: 'signature' },
    { source: 'round-2', limit: 6, form: 'chunk' },
    { source: 'search', limit: 4, form: 'chunk' },
  ],
};

/** The `why` of a piece found by `source`, from the few facts it was found by. */
export function whyOf(source: EvidenceSource, detail: string): string {
  const lead: Record<EvidenceSource, string> = {
    'failing-tests': 'failing test',
    'failure-frames': 'in the failure stack trace',
    diagnostics: 'at a diagnostic',
    'error-symbols': 'named in an error',
    diff: 'changed in the diff',
    'selection-calls': 'called by the code at the cursor',
    'referenced-types': 'type referenced at the cursor',
    imports: 'imported by the current file',
    importers: 'uses the current file',
    callees: 'used by the current file',
    tests: 'test of the current file',
    'test-helpers': 'test helper',
    'similar-tests': 'similar test',
    'open-files': 'in an open file',
    signatures: 'named in the query',
    search: 'search',
    'round-2': 'round 2',
  };
  return detail === '' ? lead[source] : `${lead[source]}: ${detail}`;
}

/**
 * Pieces per file in the pack's first round, per task (the caller's `maxPiecesPerFile` wins):
 * writing tests reads several tests of one test file.
 */
export const PIECES_PER_FILE: Readonly<Record<ContextTask, number>> = { fix: 2, test: 4, refactor: 2, explain: 2, qa: 2, complete: 2 };
