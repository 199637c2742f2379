/**
 * The context pack builder (issue 7): task, workspace, artifacts, evidence and history packed
 * into a hard token budget, returned as data and as YAML-like prompt text.
 *
 * Budget rules, in order:
 * 1. The never-drop part (the task spec with its constitution, the current file's cursor line,
 *    every diagnostic) must fit alone, or `TOO_LARGE` is thrown.
 * 2. Each section takes up to its allocation: the largest current-file window around the cursor
 *    (then branch/modified/open files), the first artifacts (the next one trimmed by lines), the
 *    best-ranked evidence pieces, the newest history entries.
 * 3. Whatever the budget still has flows to sections in `FLOW_ORDER` (evidence first).
 * 4. While the pack is over budget (mandatory parts larger than their allocation, allocations that
 *    add up to more than the budget), sections give up tokens in `OVERFLOW_ORDER`: oldest history
 *    first, then lowest-ranked evidence (whole pieces), then artifacts (last first, trimmed by
 *    lines), then the workspace extras and window (never the cursor line or diagnostics).
 * The rendered text is counted with the caller's counter and never exceeds the budget.
 */
import { EngineError } from '../core/errors.js';
import { citation, DEFAULT_MAX_PIECES_PER_FILE, mergeEvidence, type EvidenceInput, type MergedEvidence } from './evidence-merge.js';
import { flow, Pricer, shrink, type Flexible, type Plan } from './pack-budget.js';
import {
  renderPack,
  renderSections,
  SECTION_NAMES,
  type ArtifactInput,
  type HistoryEntry,
  type PackSections,
  type SectionName,
  type TaskSpec,
  type WorkspaceInput,
} from './pack-sections.js';
import type { TokenCounter } from './tokens.js';

export type Allocations = Record<SectionName, number>;

/** The default total budget in tokens. */
export const DEFAULT_BUDGET = 12_000;
/** Allocations for the default budget; for another budget they are scaled in proportion. */
export const DEFAULT_ALLOCATIONS: Readonly<Allocations> = { task: 500, workspace: 1_000, artifacts: 1_000, evidence: 8_000, history: 1_500 };
/** Lines of the current file kept at most: the cursor line and 200 on each side (seed 004 §8.4). */
export const DEFAULT_WINDOW_LINES = 401;
/** Who gets budget a section left unused, first to last. */
export const FLOW_ORDER: readonly Flexible[] = ['evidence', 'history', 'artifacts', 'workspace'];
/** Who gives up tokens when the pack is over budget, first to last. */
export const OVERFLOW_ORDER: readonly Flexible[] = ['history', 'evidence', 'artifacts', 'workspace'];

export interface ContextPackInput {
  readonly task: TaskSpec;
  readonly workspace?: WorkspaceInput | undefined;
  readonly artifacts?: readonly ArtifactInput[] | undefined;
  /** Ranked best-first. */
  readonly evidence?: readonly EvidenceInput[] | undefined;
  /** Oldest first. */
  readonly history?: readonly HistoryEntry[] | undefined;
}

export interface ContextPackOptions {
  /** Counts tokens; the budget holds by this counter (use `loadTokenCounter()` for o200k). */
  readonly counter: TokenCounter;
  /** Total tokens for the rendered text. Default 12,000. */
  readonly budget?: number | undefined;
  /** Per-section token allocations; unspecified ones are the defaults scaled to `budget`. */
  readonly allocations?: Partial<Allocations> | undefined;
  /** Evidence pieces kept per file after merging. Default 2. */
  readonly maxPiecesPerFile?: number | undefined;
  /** Upper bound on the lines of the current-file window. Default 401. */
  readonly windowLines?: number | undefined;
}

export type OmitReason = 'budget' | 'trimmed' | 'duplicate' | 'per-file-cap';

/** Something given that the pack left out or cut short. */
export interface OmittedItem {
  readonly section: SectionName;
  /** `path:start-end` for evidence, `#index role` for history, `kind: title` for artifacts. */
  readonly label: string;
  readonly reason: OmitReason;
}

export interface ContextPack {
  readonly sections: PackSections;
  readonly omitted: readonly OmittedItem[];
  /** `total` counts `text`; `bySection` counts each section's text alone (their sum may differ by a token or two). */
  readonly tokens: { readonly total: number; readonly bySection: Readonly<Record<SectionName, number>> };
  readonly budget: number;
  readonly allocations: Readonly<Allocations>;
  readonly text: string;
}

function invalid(name: string, reason: string): EngineError {
  return new EngineError('INVALID_ARGUMENT', { name, reason });
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) throw invalid(name, `must be a positive integer, got ${String(value)}`);
  return v;
}

function resolveAllocations(budget: number, given: Partial<Allocations> = {}): Allocations {
  const out = {} as Allocations;
  for (const s of SECTION_NAMES) {
    const v = given[s] ?? Math.floor((DEFAULT_ALLOCATIONS[s] * budget) / DEFAULT_BUDGET);
    if (!Number.isFinite(v) || v < 0) throw invalid(`allocations.${s}`, `must be a non-negative number, got ${String(v)}`);
    out[s] = v;
  }
  return out;
}

function validateInput(input: ContextPackInput): void {
  (input.evidence ?? []).forEach((e, i) => {
    if (!Number.isSafeInteger(e.startLine) || !Number.isSafeInteger(e.endLine) || e.startLine < 1 || e.endLine < e.startLine) {
      throw invalid(`evidence[${i}]`, `needs 1 <= startLine <= endLine, got ${e.startLine}-${e.endLine}`);
    }
  });
  const file = input.workspace?.currentFile;
  for (const key of ['cursorLine', 'firstLine', 'totalLines'] as const) {
    const v = file?.[key];
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) throw invalid(`workspace.currentFile.${key}`, `must be a positive integer, got ${v}`);
  }
}

/** Renders and counts `plan`, shrinking it until the real count is within budget. */
function fitExactly(pricer: Pricer, plan: Plan, budget: number, counter: TokenCounter): { plan: Plan; text: string; total: number } {
  for (;;) {
    const text = renderPack(pricer.sections(plan));
    const total = counter.count(text);
    if (total <= budget) return { plan, text, total };
    const next = shrink(pricer, plan, total - budget, OVERFLOW_ORDER);
    if (samePlan(next, plan)) {
      if (samePlan(plan, pricer.minimal)) throw new EngineError('INTERNAL', { reason: 'the minimal context pack stopped fitting its budget' });
      plan = pricer.minimal;
    } else plan = next;
  }
}

function samePlan(a: Plan, b: Plan): boolean {
  return (Object.keys(a) as (keyof Plan)[]).every((k) => a[k] === b[k]);
}

function omissions(input: ContextPackInput, merged: MergedEvidence, plan: Plan, sections: PackSections): OmittedItem[] {
  const out: OmittedItem[] = [];
  const ws = input.workspace ?? {};
  const window = sections.workspace.currentFile;
  if (window !== undefined && window.endLine - window.startLine + 1 < window.totalLines) {
    out.push({ section: 'workspace', label: `${window.path} outside lines ${window.startLine}-${window.endLine}`, reason: 'trimmed' });
  }
  if (!plan.extras) {
    if (ws.branch !== undefined) out.push({ section: 'workspace', label: 'branch', reason: 'budget' });
    if ((ws.modifiedFiles ?? []).length > 0) out.push({ section: 'workspace', label: 'modified_files', reason: 'budget' });
    if ((ws.openFiles ?? []).length > 0) out.push({ section: 'workspace', label: 'open_files', reason: 'budget' });
  }
  (input.artifacts ?? []).forEach((a, i) => {
    if (i < plan.artifacts) return;
    const reason = i === plan.artifacts && plan.partialLines > 0 ? 'trimmed' : 'budget';
    out.push({ section: 'artifacts', label: `${a.kind}: ${a.title}`, reason });
  });
  const lost = [
    ...merged.dropped.map((d) => ({ rank: d.rank, label: citation(d), reason: d.reason })),
    ...merged.pieces.slice(plan.evidence).map((p) => ({ rank: p.rank, label: citation(p), reason: merged.overCap.has(p) ? ('per-file-cap' as const) : ('budget' as const) })),
  ].sort((a, b) => a.rank - b.rank);
  out.push(...lost.map(({ label, reason }) => ({ section: 'evidence' as const, label, reason })));
  const history = input.history ?? [];
  history.slice(0, history.length - plan.history).forEach((h, i) => out.push({ section: 'history', label: `#${i} ${h.role}`, reason: 'budget' }));
  return out;
}

/**
 * Packs `input` into `options.budget` tokens (see the module comment for the rules). Throws
 * `TOO_LARGE` when the never-drop part alone is over budget, `INVALID_ARGUMENT` for a bad option
 * or evidence span.
 */
export function buildContextPack(input: ContextPackInput, options: ContextPackOptions): ContextPack {
  const { counter } = options;
  const budget = positiveInteger('budget', options.budget, DEFAULT_BUDGET);
  const allocations = resolveAllocations(budget, options.allocations);
  const maxPiecesPerFile = positiveInteger('maxPiecesPerFile', options.maxPiecesPerFile, DEFAULT_MAX_PIECES_PER_FILE);
  const windowLines = positiveInteger('windowLines', options.windowLines, DEFAULT_WINDOW_LINES);
  validateInput(input);
  const merged = mergeEvidence(input.evidence ?? [], { maxPiecesPerFile });
  const pricer = new Pricer(
    { task: input.task, workspace: input.workspace ?? {}, artifacts: input.artifacts ?? [], evidence: merged.pieces, history: input.history ?? [], windowLines },
    counter,
  );
  const floor = counter.count(renderPack(pricer.sections(pricer.minimal)));
  if (floor > budget) {
    throw new EngineError(
      'TOO_LARGE',
      { what: 'the never-drop part of the context pack (task, constitution, cursor line, diagnostics, pinned evidence)', size: floor, unit: 'tokens', limit: budget },
      { hint: 'raise the budget, or shorten the task spec, constitution, diagnostics or pinned evidence' },
    );
  }
  let plan = pricer.minimal;
  for (const s of ['workspace', 'artifacts', 'evidence', 'history'] as const) plan = pricer.fill(s, allocations[s], plan);
  plan = flow(pricer, plan, budget, FLOW_ORDER);
  plan = shrink(pricer, plan, pricer.total(plan) - budget, OVERFLOW_ORDER);
  const fitted = fitExactly(pricer, plan, budget, counter);
  const sections = pricer.sections(fitted.plan);
  const parts = renderSections(sections);
  const bySection = Object.fromEntries(SECTION_NAMES.map((s) => [s, parts[s] === '' ? 0 : counter.count(parts[s])])) as Record<SectionName, number>;
  return {
    sections,
    omitted: omissions(input, merged, fitted.plan, sections),
    tokens: { total: fitted.total, bySection },
    budget,
    allocations,
    text: fitted.text,
  };
}
