import { EngineError } from '../core/errors.js';
import { buildContextPack } from '../context/context-pack.js';
import { parseDiff } from '../context/diff-hunks.js';
import type { EvidenceInput } from '../context/evidence-merge.js';
import type { FailureItem } from '../context/failure-item.js';
import { parseFailure } from '../context/failure-log.js';
import { mapFailures } from '../context/failure-map.js';
import type { CurrentFile, Diagnostic } from '../context/pack-sections.js';
import { PIECES_PER_FILE, TASK_STRATEGIES, type ContextTask, type EvidenceSource } from '../context/task-strategy.js';
import { estimateTokens, loadTokenCounter, type TokenCounter } from '../context/tokens.js';
import type { FileSlice } from '../workspace/files.js';
import type { ContextOptions, TaskContext } from './engine-api.js';
import { summaryEvidence } from './context-summaries.js';
import { diagnosticCode, errorSymbols, diffCode, failingTests, failureFrames, type StepRunner } from './failure-steps.js';
import { round2Step, searchStep, signaturesStep } from './query-steps.js';
import { calleesStep, importersStep, importsStep, openFilesStep, referencedTypes, selectionCalls, similarTests, testHelpers, testsStep } from './structure-steps.js';
import { checkContextRequest, intOption } from './task-request.js';
import { TaskKit, type ContextDeps, type TaskDeps } from './task-kit.js';

export { checkContextRequest, DEFAULT_CONTEXT_TOKENS } from './task-request.js';

export type { ContextDeps, TaskDeps } from './task-kit.js';

const DEFAULT_CANDIDATES = 30;
/** Lines read each side of the cursor (the pack's window is at most 401 lines), up to 200 KB. */
const CURRENT_FILE_HALF_WINDOW = 200;
const CURRENT_FILE_MAX_BYTES = 200_000;
/** No one chunk takes more than this share of the budget (it is cut to its first lines). */
const MAX_PIECE_SHARE = 0.3;
/** The query, as the pack's task goal, takes at most this share of the budget (it is cut at its end). */
const MAX_GOAL_SHARE = 0.25;
/** Summaries are added when at least this much budget is left after every retrieved piece. */
const MIN_SUMMARY_TOKENS = 200;
/**
 * The query as the pack's goal: whole when it takes at most `cap` tokens, else its longest prefix
 * that does (binary search on characters) with a marker. A long issue text must not make the pack
 * `TOO_LARGE`; the search still uses all of it.
 */
function goalOf(query: string, counter: TokenCounter, cap: number): { goal: string; trimmed: boolean } {
  if (counter.count(query) <= cap) return { goal: query, trimmed: false };
  const MARK = ' […]';
  let lo = 0;
  let hi = query.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(query.slice(0, mid) + MARK) <= cap) lo = mid;
    else hi = mid - 1;
  }
  return { goal: query.slice(0, lo).trimEnd() + MARK, trimmed: true };
}

async function currentFile(deps: ContextDeps, current: NonNullable<ContextOptions['current']>): Promise<CurrentFile> {
  const wanted = current.line === undefined ? 1 : intOption('current.line', current.line, 1, Number.MAX_SAFE_INTEGER, 1);
  const around = (line: number): Promise<FileSlice> => deps.readFile(current.path, { startLine: Math.max(1, line - CURRENT_FILE_HALF_WINDOW), endLine: line + CURRENT_FILE_HALF_WINDOW, maxBytes: CURRENT_FILE_MAX_BYTES });
  let slice = await around(wanted).catch(async (err: unknown) => {
    if (!(err instanceof EngineError) || err.code !== 'INVALID_ARGUMENT' || err.data.name !== 'start_line') throw err;
    const head = await deps.readFile(current.path, { startLine: 1, endLine: 1 });
    return around(head.totalLines);
  });
  const line = Math.min(wanted, slice.totalLines);
  // long lines stopped the slice at 200 KB before the cursor: start at the cursor instead
  if (line > slice.endLine) slice = await deps.readFile(current.path, { startLine: line, endLine: line + CURRENT_FILE_HALF_WINDOW, maxBytes: CURRENT_FILE_MAX_BYTES });
  return { path: slice.path, text: slice.text, cursorLine: Math.min(line, slice.endLine), firstLine: slice.startLine, totalLines: slice.totalLines };
}


/** Pinned pieces take at most this share of the budget together (later pins become plain evidence). */
const MAX_PINNED_SHARE = 0.5;
/** A pinned piece is cut to this share of the budget. */
const MAX_PINNED_PIECE_SHARE = 0.15;
/** Diagnostics parsed from a log that enter the never-drop workspace section, at most. */
const MAX_LOG_DIAGNOSTICS = 10;

const RUNNERS: Readonly<Record<EvidenceSource, StepRunner>> = {
  'failing-tests': failingTests,
  'failure-frames': failureFrames,
  diagnostics: diagnosticCode,
  'error-symbols': errorSymbols,
  diff: diffCode,
  'selection-calls': selectionCalls,
  'referenced-types': referencedTypes,
  imports: importsStep,
  importers: importersStep,
  callees: calleesStep,
  tests: testsStep,
  'test-helpers': testHelpers,
  'similar-tests': similarTests,
  'open-files': openFilesStep,
  signatures: signaturesStep,
  search: searchStep,
  'round-2': round2Step,
};

/** A log's items placed on indexed files: only the files named like those in the log are listed. */
async function placeFailures(deps: TaskDeps, log: string | undefined): Promise<FailureItem[]> {
  const items = parseFailure(log ?? '');
  if (items.length === 0) return [];
  const names = [...new Set(items.map((i) => i.file.replace(/\\/g, '/').split('/').pop() ?? ''))].filter((n) => /^[\w.@+-]+$/.test(n));
  if (names.length === 0) return [];
  // a plain name is a path prefix to listFiles: `**/name` matches the file name in any folder
  const listing = await deps.listFiles({ glob: names.flatMap((n) => [n, `**/${n}`]), limit: 10_000, includeHidden: true });
  return [...mapFailures(items, deps.root, listing.files.map((f) => f.path)).items];
}

/** Pins beyond the pinned share of the budget become plain evidence (a pack must stay possible). */
function limitPins(evidence: readonly EvidenceInput[], tokens: number): EvidenceInput[] {
  let used = 0;
  return evidence.map((e) => {
    if (e.pinned !== true) return e;
    used += estimateTokens(e.text) + 24;
    return used <= tokens * MAX_PINNED_SHARE ? e : { ...e, pinned: undefined };
  });
}

/** Runs the task's steps in order; a step that fails on this index finds nothing, the others go on. */
async function runStrategy(kit: TaskKit, task: ContextTask, candidates: number): Promise<{ evidence: EvidenceInput[]; steps: { source: EvidenceSource; found: number }[] }> {
  const evidence: EvidenceInput[] = [];
  const steps: { source: EvidenceSource; found: number }[] = [];
  for (const step of TASK_STRATEGIES[task]) {
    const limit = step.source === 'search' && task === 'qa' ? candidates : step.limit;
    const found = await RUNNERS[step.source](kit, { ...step, limit }, evidence).catch((err: unknown) => {
      if (kit.request.signal?.aborted === true || !(err instanceof EngineError) || err.code === 'CLOSED') throw err;
      return [] as EvidenceInput[];
    });
    steps.push({ source: step.source, found: found.length });
    evidence.push(...found);
  }
  return { evidence, steps };
}

/** The goal when the query is empty: what the task is about. */
function defaultGoal(task: ContextTask, current: string | undefined, failures: readonly FailureItem[]): string {
  const first = failures.find((f) => f.message !== '');
  if (first !== undefined) return `${task}: ${first.message}`;
  return `${task}${current !== undefined ? ` ${current}` : ''}`;
}

/**
 * The pack for a task (issue 20; seed 004 §8.4): a "you are here" window of the current file and
 * the diagnostics (never dropped), then the evidence of the task's strategy (TASK_STRATEGIES) in
 * step order, each piece with its `why` — pinned pieces (a failure's tests and frames) never
 * dropped — then summaries if budget is left; all inside `tokens` (o200k).
 */
export async function buildTaskContext(deps: TaskDeps, query: string, options: ContextOptions): Promise<TaskContext> {
  const tokens = checkContextRequest(query, options);
  const task = options.task ?? 'qa';
  const candidates = intOption('candidates', options.candidates, 1, 100, DEFAULT_CANDIDATES);
  const maxPiecesPerFile = intOption('maxPiecesPerFile', options.maxPiecesPerFile, 1, 20, PIECES_PER_FILE[task]);
  const [counter, file, failures, definitions] = await Promise.all([
    loadTokenCounter(),
    options.current ? currentFile(deps, options.current) : Promise.resolve(undefined),
    placeFailures(deps, options.log),
    options.current && deps.definitionsNear ? deps.definitionsNear(options.current) : Promise.resolve([] as EvidenceInput[]),
  ]);
  const cursor = file !== undefined ? { path: file.path, line: file.cursorLine ?? 1 } : undefined;
  const given = options.diagnostics ?? [];
  const request = { query, current: cursor, selection: options.selection, openFiles: options.openFiles ?? [], failures, diagnostics: given, diff: parseDiff(options.diff ?? ''), draft: options.draft, language: options.language, signal: options.signal };
  const cap = Math.max(64, Math.floor(tokens * MAX_PIECE_SHARE));
  const pinCap = Math.max(64, Math.floor(tokens * MAX_PINNED_PIECE_SHARE));
  const kit = new TaskKit(deps, request, cap, pinCap);
  const { evidence: found, steps } = await runStrategy(kit, task, candidates);
  // a language server's definitions near the cursor lead (pins still come first: mergeEvidence orders them)
  const evidence = limitPins([...definitions, ...found], tokens);
  const logDiagnostics: Diagnostic[] = failures.filter((f) => ['compile', 'type', 'lint'].includes(f.kind)).slice(0, MAX_LOG_DIAGNOSTICS).map((f) => ({ path: f.file, line: Math.max(f.line, 1), message: f.message, ...(f.symbol !== undefined ? { code: f.symbol } : {}) }));
  const diagnostics = [...given, ...logDiagnostics];
  const { goal, trimmed } = goalOf(query.trim() === '' ? defaultGoal(task, cursor?.path, failures) : query, counter, Math.floor(tokens * MAX_GOAL_SHARE));
  const workspace = file !== undefined || diagnostics.length > 0 || request.openFiles.length > 0 ? { currentFile: file, diagnostics, openFiles: request.openFiles.length > 0 ? request.openFiles : undefined } : undefined;
  const input = { task: { goal }, workspace, evidence };
  let pack = buildContextPack(input, { counter, budget: tokens, maxPiecesPerFile });
  // step 4 of §8.4: summaries only when every piece fit and budget is left
  const left = tokens - pack.tokens.total;
  if (left >= MIN_SUMMARY_TOKENS && !pack.omitted.some((o) => o.section === 'evidence' && o.reason !== 'duplicate')) {
    const files = pack.sections.evidence.map((g) => g.path);
    const summaries = await summaryEvidence(deps, query, files.length > 0 ? files : file ? [file.path] : [], left);
    if (summaries.length > 0) pack = buildContextPack({ ...input, evidence: [...input.evidence, ...summaries] }, { counter, budget: tokens, maxPiecesPerFile });
  }
  const omitted = trimmed ? [{ section: 'task' as const, label: 'goal', reason: 'trimmed' as const }, ...pack.omitted] : pack.omitted;
  return { ...pack, omitted, query, candidates: evidence.length, task, failures, steps, rounds: kit.rounds };
}
