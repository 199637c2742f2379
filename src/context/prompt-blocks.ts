/**
 * Building blocks shared by the prompt templates: argument checks, token-budget errors, safe code
 * fences, `path:start-end` citations, and the best-first evidence packer the chat templates use.
 * Everything here is pure; budgets are counted with the caller's `TokenCounter` on the final text
 * (BPE counts are not additive, so parts are never summed to decide a fit).
 */
import { EngineError } from '../core/errors.js';
import { citation as spanCitation } from './evidence-merge.js';
import type { TokenCounter } from './tokens.js';

/** One slice of repository text given to a model as evidence, cited as `path:startLine-endLine`. */
export interface Evidence {
  /** Path relative to the project root (control characters are shown as spaces). */
  readonly path: string;
  /** First line of `text` in the file, 1-based. */
  readonly startLine: number;
  /** Last line of `text` in the file, 1-based, `>= startLine`. */
  readonly endLine: number;
  /** The slice itself; shown verbatim inside a fence longer than any backtick run it contains. */
  readonly text: string;
  /** Content hash of the file or chunk, shown next to the citation so answers can be traced. */
  readonly hash?: string;
  /** Fence info string (e.g. `ts`); characters outside `[A-Za-z0-9_+.#-]` are dropped. */
  readonly language?: string;
}

/** Throws INVALID_ARGUMENT unless `maxTokens` is a positive safe integer. */
export function checkMaxTokens(maxTokens: number): void {
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'maxTokens', reason: `must be a positive integer, got ${String(maxTokens)}` });
  }
}

/** Throws TOO_LARGE when the parts of a prompt that are never dropped do not fit the budget. */
export function fixedPartTooLarge(what: string, tokens: number, maxTokens: number, hint: string): EngineError {
  return new EngineError('TOO_LARGE', { what, size: tokens, unit: 'tokens', limit: maxTokens }, { hint });
}

/** Validates one evidence piece's line range (INVALID_ARGUMENT names the offending index). */
export function checkEvidence(evidence: readonly Evidence[], name = 'evidence'): void {
  evidence.forEach((e, i) => {
    if (!Number.isSafeInteger(e.startLine) || !Number.isSafeInteger(e.endLine) || e.startLine < 1 || e.endLine < e.startLine) {
      throw new EngineError('INVALID_ARGUMENT', {
        name: `${name}[${i}]`,
        reason: `line range must satisfy 1 <= startLine <= endLine, got ${e.startLine}-${e.endLine}`,
      });
    }
  });
}

/** `text` on one line: CR, LF and other control characters become spaces. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
}

/** The citation label `path:startLine-endLine` (always a range, even for one line). */
export function citation(e: Pick<Evidence, 'path' | 'startLine' | 'endLine'>): string {
  return spanCitation({ ...e, path: oneLine(e.path) });
}

/** A backtick fence longer than the longest backtick run in `text` (at least three). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * `text` in a fenced code block that no content can close early: the fence is longer than any
 * backtick run inside, the info string is sanitised, and the closing fence is on its own line.
 */
export function codeBlock(text: string, language = ''): string {
  const fence = fenceFor(text);
  const info = language.replace(/[^A-Za-z0-9_+.#-]/g, '');
  const body = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return `${fence}${info}\n${body}${fence}`;
}

/** One numbered, cited evidence block: `[n] path:start-end (hash h)` then the fenced text. */
export function evidenceBlock(e: Evidence, n: number): string {
  const hash = e.hash === undefined ? '' : ` (hash ${oneLine(e.hash)})`;
  return `[${n}] ${citation(e)}${hash}\n${codeBlock(e.text, e.language)}`;
}

/** What `packEvidence` kept and dropped. */
export interface PackedEvidence {
  /** The full user text for the kept evidence. */
  readonly user: string;
  /** Citation labels of the kept evidence, in order. */
  readonly cited: string[];
  /** Citation labels of the evidence dropped to fit the budget, in input order. */
  readonly omitted: string[];
}

/**
 * Packs evidence best-first: walks the list in order and keeps each piece whose addition still fits
 * `counter.count(system) + counter.count(user) <= maxTokens`, so a piece is only ever dropped for
 * pieces before it, never for one after it. `build(kept)` renders the user text for a kept list
 * (blocks numbered in kept order). Throws TOO_LARGE when `build([])` alone does not fit.
 */
export function packEvidence(
  opts: { counter: TokenCounter; maxTokens: number; system: string; what: string; hint: string },
  evidence: readonly Evidence[],
  build: (blocks: readonly string[]) => string,
): PackedEvidence {
  const { counter, maxTokens } = opts;
  const systemTokens = counter.count(opts.system);
  let user = build([]);
  let used = systemTokens + counter.count(user);
  if (used > maxTokens) throw fixedPartTooLarge(opts.what, used, maxTokens, opts.hint);
  const blocks: string[] = [];
  const cited: string[] = [];
  const omitted: string[] = [];
  for (const e of evidence) {
    const block = evidenceBlock(e, blocks.length + 1);
    // cheap reject: a block that alone exceeds what is left will not fit with the rest either
    if (counter.count(block) <= maxTokens - used) {
      const candidate = build([...blocks, block]);
      const total = systemTokens + counter.count(candidate);
      if (total <= maxTokens) {
        blocks.push(block);
        cited.push(citation(e));
        user = candidate;
        used = total;
        continue;
      }
    }
    omitted.push(citation(e));
  }
  return { user, cited, omitted };
}
