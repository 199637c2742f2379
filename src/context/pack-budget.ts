/**
 * Fitting a context pack into its token budget. A `Plan` says how much of each section is kept;
 * every section can be "filled" up to a token cap, keeping the most important part (newest
 * history, best-ranked evidence, first artifacts, largest current-file window around the cursor).
 * Costs are priced per entry with the caller's counter and summed. Every entry ends in a line
 * break, so o200k never merges tokens across entries and the sum matched the count of the whole
 * in 3,000 random packs; the caller still counts the rendered whole and shrinks again if not.
 */
import type { TokenCounter } from './tokens.js';
import { groupEvidence, splitLines, type EvidencePiece } from './evidence-merge.js';
import {
  renderArtifact,
  renderEvidencePiece,
  renderHistoryEntry,
  renderTask,
  renderWorkspace,
  type ArtifactInput,
  type FileWindow,
  type HistoryEntry,
  type PackSections,
  type PackedArtifact,
  type PackedWorkspace,
  type SectionName,
  type TaskSpec,
  type WorkspaceInput,
} from './pack-sections.js';

/** How much of each section is kept. */
export interface Plan {
  /** Lines of the current-file window (0 when there is no current file). */
  readonly window: number;
  /** Whether branch, modified and open files are kept. */
  readonly extras: boolean;
  /** Whole artifacts kept, from the first. */
  readonly artifacts: number;
  /** Lines kept of the next artifact (0: none of it). */
  readonly partialLines: number;
  /** Best-priority evidence pieces kept. */
  readonly evidence: number;
  /** Newest history entries kept. */
  readonly history: number;
}

export type Flexible = Exclude<SectionName, 'task'>;

/** The pieces a plan is cut from, normalised once. */
export interface PackParts {
  readonly task: TaskSpec;
  readonly workspace: WorkspaceInput;
  readonly artifacts: readonly ArtifactInput[];
  readonly evidence: readonly EvidencePiece[];
  readonly history: readonly HistoryEntry[];
  /** Upper bound on the window's lines. */
  readonly windowLines: number;
}

/**
 * `size` lines of the file around the cursor: centred on it, shifted inward at the edges of the
 * text given. Line numbers are the whole file's (`firstLine` places a slice).
 */
export function cursorWindow(file: NonNullable<WorkspaceInput['currentFile']>, size: number, lines: readonly string[] = splitLines(file.text)): FileWindow {
  const total = lines.length;
  const offset = (file.firstLine ?? 1) - 1;
  const anchor = Math.min(Math.max((file.cursorLine ?? offset + 1) - offset, 1), total);
  const n = Math.min(Math.max(size, 1), total);
  const start = Math.min(Math.max(anchor - Math.floor((n - 1) / 2), 1), total - n + 1);
  const end = start + n - 1;
  return {
    path: file.path,
    cursorLine: file.cursorLine,
    startLine: offset + start,
    endLine: offset + end,
    totalLines: Math.max(file.totalLines ?? 0, offset + total),
    text: lines.slice(start - 1, end).join('\n'),
  };
}

/** The largest n in [lo, hi] with ok(n), assuming ok is monotone; `lo - 1` when none. */
function largest(lo: number, hi: number, ok: (n: number) => boolean): number {
  let best = lo - 1;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** Prefix sums of entry costs plus the section header, as the cost of keeping the first n. */
function prefixCosts(counter: TokenCounter, header: string, fragments: readonly string[]): number[] {
  const sums = [0];
  const head = counter.count(header);
  fragments.forEach((f, i) => sums.push((i === 0 ? head : sums[i]!) + counter.count(f)));
  return sums;
}

function largestPrefix(sums: readonly number[], cap: number): number {
  return Math.max(largest(0, sums.length - 1, (n) => sums[n]! <= cap), 0);
}

const SECTIONS: readonly SectionName[] = ['task', 'workspace', 'artifacts', 'evidence', 'history'];

/** Prices plans for one set of parts; every entry is counted once. */
export class Pricer {
  readonly minimal: Plan;
  /** Evidence pieces that are never dropped (the first ones). */
  private readonly pinned: number;
  private readonly fileLines: readonly string[];
  private readonly maxWindow: number;
  private readonly artifactLines: readonly (readonly string[])[];
  private readonly newestFirst: readonly HistoryEntry[];
  private readonly taskCost: number;
  private readonly artifactSums: readonly number[];
  private readonly evidenceSums: readonly number[];
  private readonly historySums: readonly number[];
  private readonly wsCosts = new Map<string, number>();

  constructor(
    private readonly parts: PackParts,
    private readonly counter: TokenCounter,
  ) {
    const file = parts.workspace.currentFile;
    this.fileLines = file !== undefined ? splitLines(file.text) : [];
    this.maxWindow = Math.min(this.fileLines.length, parts.windowLines);
    this.artifactLines = parts.artifacts.map((a) => splitLines(a.text));
    this.newestFirst = [...parts.history].reverse();
    this.taskCost = counter.count(renderTask(parts.task));
    const whole = parts.artifacts.map((_, i) => renderArtifact(this.artifact(i, this.artifactLines[i]!.length)));
    this.artifactSums = prefixCosts(counter, 'artifacts:\n', whole);
    this.evidenceSums = prefixCosts(counter, 'evidence:\n', parts.evidence.map(renderEvidencePiece));
    this.historySums = prefixCosts(counter, 'history:\n', this.newestFirst.map(renderHistoryEntry));
    // pinned pieces lead the priority order (mergeEvidence): the never-drop prefix of the evidence
    this.pinned = parts.evidence.findIndex((p) => p.pinned !== true);
    if (this.pinned < 0) this.pinned = parts.evidence.length;
    this.minimal = { window: this.maxWindow === 0 ? 0 : 1, extras: false, artifacts: 0, partialLines: 0, evidence: this.pinned, history: 0 };
  }

  cost(section: SectionName, plan: Plan): number {
    switch (section) {
      case 'task':
        return this.taskCost;
      case 'workspace':
        return this.workspaceCost(plan.window, plan.extras);
      case 'artifacts':
        return this.artifactSums[plan.artifacts]! + (plan.partialLines > 0 ? this.partialCost(plan.artifacts, plan.partialLines) : 0);
      case 'evidence':
        return this.evidenceSums[plan.evidence]!;
      case 'history':
        return this.historySums[plan.history]!;
    }
  }

  total(plan: Plan): number {
    return SECTIONS.reduce((sum, s) => sum + this.cost(s, plan), 0);
  }

  /** The most of `section` that costs at most `cap` (never below its never-drop minimum). */
  fill(section: Flexible, cap: number, plan: Plan): Plan {
    switch (section) {
      case 'workspace':
        return this.fillWorkspace(cap, plan);
      case 'artifacts':
        return this.fillArtifacts(cap, plan);
      case 'evidence':
        return { ...plan, evidence: Math.max(largestPrefix(this.evidenceSums, cap), this.pinned) };
      case 'history':
        return { ...plan, history: largestPrefix(this.historySums, cap) };
    }
  }

  sections(plan: Plan): PackSections {
    const { parts } = this;
    return {
      task: parts.task,
      workspace: this.workspace(plan.window, plan.extras),
      artifacts: [
        ...parts.artifacts.slice(0, plan.artifacts).map((_, i) => this.artifact(i, this.artifactLines[i]!.length)),
        ...(plan.partialLines > 0 ? [this.artifact(plan.artifacts, plan.partialLines)] : []),
      ],
      evidence: groupEvidence(parts.evidence.slice(0, plan.evidence)),
      history: this.newestFirst
        .slice(0, plan.history)
        .reverse()
        .map((h, i) => ({ ...h, index: parts.history.length - plan.history + i })),
    };
  }

  /** The largest window that fits `cap` (at least the cursor line), then the extras if they still fit. */
  private fillWorkspace(cap: number, plan: Plan): Plan {
    const fits = (n: number): boolean => this.workspaceCost(n, false) <= cap;
    const window = this.maxWindow === 0 ? 0 : Math.max(largest(1, this.maxWindow, fits), 1);
    return { ...plan, window, extras: this.workspaceCost(window, true) <= cap };
  }

  /** The first artifacts that fit whole, then as many lines of the next one as fit. */
  private fillArtifacts(cap: number, plan: Plan): Plan {
    const whole = largestPrefix(this.artifactSums, cap);
    const next = { ...plan, artifacts: whole, partialLines: 0 };
    if (whole >= this.parts.artifacts.length) return next;
    const base = this.artifactSums[whole]!;
    const lines = largest(1, this.artifactLines[whole]!.length - 1, (n) => base + this.partialCost(whole, n) <= cap);
    return { ...next, partialLines: Math.max(lines, 0) };
  }

  private workspace(window: number, withExtras: boolean): PackedWorkspace {
    const ws = this.parts.workspace;
    const extras = withExtras ? { branch: ws.branch, modifiedFiles: ws.modifiedFiles, openFiles: ws.openFiles } : {};
    const currentFile = ws.currentFile !== undefined ? cursorWindow(ws.currentFile, window, this.fileLines) : undefined;
    return { currentFile, diagnostics: ws.diagnostics ?? [], ...extras };
  }

  private workspaceCost(window: number, extras: boolean): number {
    const key = `${window}|${extras}`;
    let c = this.wsCosts.get(key);
    if (c === undefined) this.wsCosts.set(key, (c = this.counter.count(renderWorkspace(this.workspace(window, extras)))));
    return c;
  }

  private artifact(i: number, kept: number): PackedArtifact {
    const a = this.parts.artifacts[i]!;
    const lines = this.artifactLines[i]!;
    return { ...a, index: i, keptLines: kept, totalLines: lines.length, text: kept < lines.length ? lines.slice(0, kept).join('\n') : a.text };
  }

  /** Cost of artifact `i` cut to its first `lines` lines, with the section header when it is the first. */
  private partialCost(i: number, lines: number): number {
    return (i === 0 ? this.counter.count('artifacts:\n') : 0) + this.counter.count(renderArtifact(this.artifact(i, lines)));
  }
}

/** Hands the budget left over after every section took its allocation to sections in `order`. */
export function flow(pricer: Pricer, plan: Plan, budget: number, order: readonly Flexible[]): Plan {
  let spare = budget - pricer.total(plan);
  for (const s of order) {
    if (spare <= 0) break;
    const before = pricer.cost(s, plan);
    plan = pricer.fill(s, before + spare, plan);
    spare -= pricer.cost(s, plan) - before;
  }
  return plan;
}

/** Gives up `over` tokens, section by section in `order`, each keeping what matters most in it. */
export function shrink(pricer: Pricer, plan: Plan, over: number, order: readonly Flexible[]): Plan {
  for (const s of order) {
    if (over <= 0) break;
    const before = pricer.cost(s, plan);
    plan = pricer.fill(s, before - over, plan);
    over -= before - pricer.cost(s, plan);
  }
  return plan;
}
