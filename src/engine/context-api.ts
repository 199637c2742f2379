import type { ContextPack } from '../context/context-pack.js';
import type { FailureItem } from '../context/failure-item.js';
import type { Diagnostic } from '../context/pack-sections.js';
import type { ContextTask, EvidenceSource } from '../context/task-strategy.js';

/** The types of `Engine.context` (task-aware retrieval, issue 20); re-exported by engine-api.ts. */

/** A context pack for one query, and what it was built from. */
export interface TaskContext extends ContextPack {
  readonly query: string;
  /** Evidence pieces retrieved before packing. */
  readonly candidates: number;
  /** The task whose strategy built the pack (`qa` when none was given). */
  readonly task: ContextTask;
  /** The items of `log` placed on indexed files (root-relative), log order; empty without a log. */
  readonly failures: readonly FailureItem[];
  /** Each step of the task's strategy, in order, and how many pieces it found (before packing). */
  readonly steps: readonly { readonly source: EvidenceSource; readonly found: number }[];
  /**
   * Iterative retrieval (seed 004 §8.5), for `complete`: round 1 (signatures, nearest
   * dependencies) and round 2 with the identifiers it looked up (from `draft`, else from round 1's evidence).
   */
  readonly rounds: readonly { readonly round: number; readonly from: 'evidence' | 'draft' | 'query'; readonly identifiers: readonly string[] }[];
}

export interface ContextOptions {
  /** The file being edited (relative to the root) and the cursor line: a window around it comes first. */
  readonly current?: { readonly path: string; readonly line?: number | undefined } | undefined;
  /** Token budget of the whole pack (o200k). Range 256–100,000; default 8,000. */
  readonly tokens?: number | undefined;
  /** Only chunks in this language. */
  readonly language?: string | undefined;
  /** Chunks retrieved before packing. Range 1–100; default 30. */
  readonly candidates?: number | undefined;
  /** Pieces per file at most. Range 1–20; default 2. */
  readonly maxPiecesPerFile?: number | undefined;
  /** Cancels a model rerank in flight. */
  readonly signal?: AbortSignal | undefined;
  /**
   * What the agent is doing (issue 20): `fix`, `test`, `refactor`, `explain`, `qa` (default: the
   * query pack) or `complete` (two rounds). Each has its strategy (TASK_STRATEGIES); every piece
   * says `why` it was retrieved.
   */
  readonly task?: ContextTask | undefined;
  /** Lines selected in `current` (1-based, inclusive); needs `current`. */
  readonly selection?: { readonly startLine: number; readonly endLine: number } | undefined;
  /** Files open in the editor (root-relative): their definitions the query names come early. At most 100. */
  readonly openFiles?: readonly string[] | undefined;
  /** Diagnostics from an editor or build (never dropped; the code at each is evidence). At most 500. */
  readonly diagnostics?: readonly Diagnostic[] | undefined;
  /**
   * Terminal output (test run, build, crash), parsed with `parseFailure`: for `fix`, the failing
   * tests and the functions of the frames become pinned (never dropped) evidence. At most 10 MB.
   */
  readonly log?: string | undefined;
  /** A unified git diff: the definitions it changes are evidence (`fix`). At most 5 MB. */
  readonly diff?: string | undefined;
  /** A model's draft (plan or completion): round 2 of `complete` looks up what it mentions. At most 64 KiB. */
  readonly draft?: string | undefined;
}
