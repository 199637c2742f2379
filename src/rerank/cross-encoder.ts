import { statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { EngineError } from '../core/errors.js';
import type { Clock, Logger } from '../core/logger.js';
import { silentLogger, systemClock } from '../core/logger.js';
import type { PairScorer } from './onnx-pair-scorer.js';
import { loadPairScorer } from './onnx-pair-scorer.js';
import type { RerankCandidate, Reranker, RerankOutcome, RerankSkipReason } from './reranker.js';
import { orderByScores } from './reranker.js';

/**
 * A cross-encoder reranker: a local ONNX model (a sentence-transformers cross-encoder such as
 * ms-marco-MiniLM-L-6-v2, exported to ONNX) reads each (query, chunk) pair and gives one logit of
 * relevance. Runs on onnxruntime-node's CPU provider; nothing leaves the machine.
 *
 * The model loads on the first rerank, not at creation or start-up, and is kept until `close()`.
 * onnxruntime-node runs a batch synchronously on the main thread, so the time budget is checked
 * between batches: a rerank overruns it by at most one batch.
 */

export interface CrossEncoderConfig {
  /** Directory holding `tokenizer.json` and `model.onnx` (or `onnx/model.onnx`); relative to the working directory. */
  readonly modelDir: string;
  /** Tokens per (query, chunk) pair; longer pairs are cut, the longer side first. Range 32–2048. */
  readonly maxLength: number;
  /** Candidates scored, from the top; the rest keep their places. Range 1–50. */
  readonly maxCandidates: number;
  /** Budget of one rerank in ms; what is not scored by then keeps its place (`skipped: timeout`). */
  readonly timeoutMs: number;
  /** Pairs per inference call. Default {@link DEFAULT_CROSS_ENCODER_BATCH}. */
  readonly batchSize?: number;
  /** Time source for the budget and `tookMs`. Default: the system clock. */
  readonly clock?: Clock;
  /** Told once when the model cannot be loaded. Default: silent. */
  readonly logger?: Logger;
  /** Loads onnxruntime-node: the engine passes embed/'s loader, the one place the runtime is loaded (it turns telemetry off first). */
  readonly loadRuntime: () => Promise<unknown>;
}

/** Small enough that one batch of 512-token pairs stays well under the default 5 s budget on 2 cores. */
export const DEFAULT_CROSS_ENCODER_BATCH = 8;

/** Where a model directory's files are. */
export interface CrossEncoderFiles {
  readonly dir: string;
  readonly modelPath: string;
  readonly tokenizerPath: string;
}

const MODEL_CANDIDATES = ['model.onnx', join('onnx', 'model.onnx')];
const CONFIG_SOURCE = 'rerank.crossEncoder.modelDir';
const CONFIG_HINT =
  'point rerank.crossEncoder.modelDir at a directory holding tokenizer.json and model.onnx (or onnx/model.onnx), e.g. a sentence-transformers cross-encoder exported to ONNX';

/** Finds the model and tokenizer files, or throws CONFIG_INVALID naming what is missing. */
export function locateCrossEncoderFiles(modelDir: string): CrossEncoderFiles {
  const dir = resolve(modelDir);
  const invalid = (reason: string) => new EngineError('CONFIG_INVALID', { source: CONFIG_SOURCE, reason }, { hint: CONFIG_HINT });
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw invalid(`no such directory: ${dir}`);
  const tokenizerPath = join(dir, 'tokenizer.json');
  if (!statSync(tokenizerPath, { throwIfNoEntry: false })?.isFile()) throw invalid(`no tokenizer.json in ${dir}`);
  const modelPath = MODEL_CANDIDATES.map((rel) => join(dir, rel)).find((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
  if (modelPath === undefined) throw invalid(`no model.onnx or onnx/model.onnx in ${dir}`);
  return { dir, modelPath, tokenizerPath };
}

/**
 * Creates the reranker after checking that the model directory has its files (CONFIG_INVALID if
 * not). The model itself loads on the first rerank; a model that fails to load makes every rerank
 * return its input order with `skipped: unavailable`, and is not retried.
 */
export function createCrossEncoderReranker(config: CrossEncoderConfig): Reranker {
  const files = locateCrossEncoderFiles(config.modelDir);
  const batchSize = config.batchSize ?? DEFAULT_CROSS_ENCODER_BATCH;
  const { maxLength, maxCandidates, timeoutMs } = config;
  for (const [name, value] of Object.entries({ maxLength, maxCandidates, timeoutMs, batchSize })) {
    if (!Number.isInteger(value) || value < 1) {
      throw new EngineError('INVALID_ARGUMENT', { name, reason: `must be a positive integer, got ${value}` });
    }
  }
  const clock = config.clock ?? systemClock;
  const logger = config.logger ?? silentLogger;
  let loading: Promise<PairScorer> | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  const active = new Set<Promise<unknown>>();

  const load = (): Promise<PairScorer> => {
    loading ??= loadPairScorer(files.dir, files.modelPath, maxLength, config.loadRuntime).catch((err: unknown) => {
      logger.warn('cross-encoder: cannot load the model; reranking is skipped', { dir: files.dir, reason: describe(err) });
      throw err;
    });
    return loading;
  };

  const rerankOnce = async (query: string, candidates: readonly RerankCandidate[], signal: AbortSignal | undefined): Promise<RerankOutcome> => {
    const start = clock.now();
    const tally = new Tally(candidates.slice(0, maxCandidates));
    if (closed) tally.skipRest('unavailable', 'the reranker is closed');
    let scorer: PairScorer | undefined;
    if (tally.remaining.length > 0) {
      try {
        scorer = await load();
      } catch (err) {
        tally.skipRest('unavailable', describe(err));
      }
    }
    const deadline = start + timeoutMs;
    while (scorer !== undefined && tally.remaining.length > 0) {
      if (closed) tally.skipRest('unavailable', 'the reranker is closed');
      else if (signal?.aborted) tally.skipRest('aborted');
      else if (clock.now() >= deadline) tally.skipRest('timeout', `budget ${timeoutMs} ms`);
      else await tally.scoreNext(batchSize, (batch) => scorer!.score(query, batch.map((c) => c.text)));
    }
    return {
      order: orderByScores(candidates.map((c) => c.id), tally.scores),
      scores: tally.scores,
      ...(tally.skipped !== undefined ? { skipped: tally.skipped } : {}),
      cached: 0,
      tookMs: clock.now() - start,
    };
  };

  return {
    name: 'cross-encoder',
    model: basename(files.dir),
    rerank(query, candidates, options) {
      const run = rerankOnce(query, candidates, options?.signal);
      active.add(run);
      void run.finally(() => active.delete(run)).catch(() => {});
      return run;
    },
    close() {
      closing ??= (async () => {
        closed = true;
        // A batch in flight must finish before its session is released under it.
        await Promise.allSettled([...active]);
        const scorer = await loading?.catch(() => undefined);
        await scorer?.release();
      })();
      return closing;
    },
  };
}

/** The candidates of one rerank: which are scored, which are left, and the first reason for skipping. */
class Tally {
  readonly scores = new Map<string, number>();
  remaining: readonly RerankCandidate[];
  private reason: RerankSkipReason | undefined;
  private detail: string | undefined;
  private unscored = 0;

  constructor(candidates: readonly RerankCandidate[]) {
    this.remaining = candidates;
  }

  get skipped(): RerankOutcome['skipped'] {
    if (this.reason === undefined) return undefined;
    return { reason: this.reason, candidates: this.unscored, ...(this.detail !== undefined ? { detail: this.detail } : {}) };
  }

  skipRest(reason: RerankSkipReason, detail?: string): void {
    this.skip(this.remaining.length, reason, detail);
    this.remaining = [];
  }

  async scoreNext(size: number, score: (batch: readonly RerankCandidate[]) => Promise<number[]>): Promise<void> {
    const batch = this.remaining.slice(0, size);
    this.remaining = this.remaining.slice(size);
    let values: number[];
    try {
      values = await score(batch);
    } catch (err) {
      this.skip(batch.length, 'error', describe(err));
      return;
    }
    batch.forEach((c, i) => {
      const value = values[i];
      if (value !== undefined && Number.isFinite(value)) this.scores.set(c.id, value);
      else this.skip(1, 'error', `the model gave a non-finite score (${value})`);
    });
  }

  private skip(count: number, reason: RerankSkipReason, detail?: string): void {
    if (count === 0) return;
    this.unscored += count;
    if (this.reason === undefined) {
      this.reason = reason;
      this.detail = detail;
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
