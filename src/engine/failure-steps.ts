/**
 * The steps of task-aware retrieval that start from what went wrong (seed 002 "Pass 3: Failure
 * retrieval"): the failing tests and the functions of the stack frames (pinned), the code at each
 * diagnostic, the symbols the error messages name, and what the git diff changed.
 */
import type { EvidenceInput } from '../context/evidence-merge.js';
import type { FailureItem } from '../context/failure-item.js';
import { lastSegment } from '../context/failure-rules.js';
import type { StrategyStep } from '../context/task-strategy.js';
import { isTestPath } from '../search/rank.js';
import { identifiers } from './evidence-text.js';
import { collect, type TaskKit } from './task-kit.js';

export type StepRunner = (kit: TaskKit, step: StrategyStep, sofar: readonly EvidenceInput[]) => Promise<EvidenceInput[]>;

const PYTHON_TOOLS = new Set(['python', 'pytest', 'unittest']);
const DIAGNOSTIC_KINDS = new Set(['compile', 'type', 'lint']);

const short = (s: string, n = 120): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A failing test as evidence: its function (found by line, or by name when the log gave none). */
async function failingTest(kit: TaskKit, step: StrategyStep, item: FailureItem): Promise<EvidenceInput | undefined> {
  const detail = `${item.symbol ?? item.file}${item.message ? ` (${short(item.message, 100)})` : ''}`;
  if (item.line > 0) return kit.around(item.file, item.line, step, detail);
  const name = lastSegment(item.symbol ?? '');
  if (name === '') return undefined;
  const defs = await kit.definitionsOf(name);
  const best = defs.find((d) => d.path === item.file) ?? defs.find((d) => isTestPath(d.path)) ?? defs[0];
  return best === undefined ? undefined : kit.definition(best, step, detail);
}

export const failingTests: StepRunner = (kit, step) =>
  collect(
    kit.request.failures.filter((f) => f.kind === 'test'),
    step.limit,
    (item) => failingTest(kit, step, item),
  );

/**
 * The functions at the frames inside the repository, nearest the throw first (Python prints the
 * innermost frame last, the other runtimes first); a failing test's own frames are its step's.
 */
export const failureFrames: StepRunner = (kit, step) => {
  const frames = kit.request.failures.filter((f) => f.kind === 'frame' || f.kind === 'panic');
  const ordered = frames.length > 0 && PYTHON_TOOLS.has(frames[0]!.tool) ? [...frames].reverse() : frames;
  return collect(ordered, step.limit, (f) => kit.around(f.file, f.line, step, `${f.file}:${f.line}${f.message ? ` ${short(f.message, 100)}` : ''}`));
};

export const diagnosticCode: StepRunner = (kit, step) => {
  const parsed = kit.request.failures.filter((f) => DIAGNOSTIC_KINDS.has(f.kind)).map((f) => ({ path: f.file, line: f.line, message: f.message }));
  return collect([...kit.request.diagnostics, ...parsed], step.limit, (d) => kit.around(d.path, d.line, step, short(d.message)));
};

/** Names an error message quotes (`'years'`, "greet", `Foo`) or writes as code. */
export function errorNames(message: string): string[] {
  const quoted = [...message.matchAll(/['"`‘“]([A-Za-z_$][\w$.]{2,})['"`’”]/g)].map((m) => lastSegment(m[1]!));
  return [...new Set([...quoted, ...identifiers(message, 10)])];
}

export const errorSymbols: StepRunner = async (kit, step) => {
  const messages = [...kit.request.failures.map((f) => f.message), ...kit.request.diagnostics.map((d) => d.message)];
  const names = [...new Set(messages.flatMap(errorNames))].slice(0, 20);
  return collect(names, step.limit, async (name) => {
    const defs = await kit.definitionsOf(name);
    return defs[0] === undefined ? undefined : kit.definition(defs[0], step, name);
  });
};

export const diffCode: StepRunner = (kit, step) => {
  const spots = kit.request.diff.flatMap((f) => f.lines.slice(0, 20).map((line) => ({ path: f.path, line })));
  return collect(spots, step.limit, (s) => kit.around(s.path, s.line, step, `${s.path}:${s.line}`));
};
