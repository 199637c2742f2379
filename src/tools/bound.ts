import type { TokenCounter } from '../index.js';
import type { Envelope, EnvelopeMeta, Omitted, ToolErrorCode } from './envelope.js';

/** Hard cap of one tool result, in UTF-8 bytes of the envelope as JSON (../shared/seeds §17.2). */
export const MAX_ENVELOPE_BYTES = 200_000;
/** Labels listed per omitted field; the count says how many more there were. */
const MAX_OMITTED_LABELS = 20;

/** How a tool's data may be cut: whole list items from the end first, then whole lines of one text. */
export interface BoundSpec<T = unknown> {
  /** The array field of `data` whose trailing items may be dropped (`results`, `files`, `matches`). */
  readonly list?: string;
  /** A short label of a list item for `meta.omitted` (`src/a.ts:10-20`). */
  readonly label?: (item: unknown) => string;
  /** One multi-line text that may be cut to its first lines (read_file's `text`). */
  readonly lines?: {
    readonly field: string;
    /** The data with only the first `keep` lines of the text (and any line numbers adjusted). */
    readonly keep: (data: T, keep: number) => T;
  };
}

/**
 * The usual `lines` spec: cut `data.text` to its first lines and mark `truncated`; with
 * `moveEndLine`, `end_line` follows (a file slice), otherwise it keeps naming the whole span (a definition).
 */
export function firstLinesOfText(options: { moveEndLine: boolean }): NonNullable<BoundSpec['lines']> {
  return {
    field: 'text',
    keep: (data, keep) => {
      const d = data as Record<string, unknown> & { text: string; start_line: number };
      const text = d.text.split('\n').slice(0, keep).join('\n');
      return { ...d, text, ...(options.moveEndLine ? { end_line: d.start_line + keep - 1 } : {}), truncated: true };
    },
  };
}

export interface BoundLimits {
  readonly maxBytes?: number;
  readonly maxTokens?: number | undefined;
  readonly counter?: TokenCounter | undefined;
}

interface Draft {
  readonly ok: boolean;
  readonly data: unknown;
  readonly error: ToolErrorCode | null;
  readonly warnings: readonly string[];
  readonly source?: string | undefined;
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Fits an envelope into the byte cap and the caller's token budget, deterministically: drop
 * whole list items from the end (the lowest-ranked), or whole lines from the end of the text,
 * listing what was left out in `meta.omitted`. If not even one item (or line) fits, the result
 * is a `too_large` failure that says how large the full result is. Pure apart from the token counter.
 */
export function boundEnvelope(draft: Draft, spec: BoundSpec | undefined, limits: BoundLimits = {}): Envelope {
  const maxBytes = Math.min(limits.maxBytes ?? MAX_ENVELOPE_BYTES, MAX_ENVELOPE_BYTES);
  const measure = (env: Envelope): { bytes: number; tokens?: number } => {
    // `bytes` and `tokens` are filled in after measuring: reserve their widest values so the
    // final envelope is never larger than what was measured
    const reserve = limits.maxTokens !== undefined && limits.counter ? { tokens: limits.maxTokens } : {};
    const text = JSON.stringify({ ...env, meta: { ...env.meta, bytes: MAX_ENVELOPE_BYTES, ...reserve } });
    const bytes = utf8(text);
    if (limits.maxTokens === undefined || !limits.counter) return { bytes };
    return { bytes, tokens: limits.counter.count(text) };
  };
  const fits = (m: { bytes: number; tokens?: number }): boolean => m.bytes <= maxBytes && (limits.maxTokens === undefined || (m.tokens ?? 0) <= limits.maxTokens);
  const build = (data: unknown, omitted: Omitted[], extraWarnings: readonly string[]): Envelope => {
    const meta: EnvelopeMeta = {
      truncated: omitted.length > 0,
      bytes: 0,
      warnings: [...draft.warnings, ...extraWarnings],
      ...(omitted.length > 0 ? { omitted } : {}),
      ...(draft.source !== undefined ? { source: draft.source } : {}),
    };
    return { ok: draft.ok, data, error: draft.error, meta };
  };
  const finish = (env: Envelope, m: { bytes: number; tokens?: number }): Envelope => {
    const final = { ...env, meta: { ...env.meta, ...(m.tokens !== undefined && limits.maxTokens !== undefined ? { tokens: m.tokens } : {}) } };
    const bytes = utf8(JSON.stringify({ ...final, meta: { ...final.meta, bytes: MAX_ENVELOPE_BYTES } }));
    return { ...final, meta: { ...final.meta, bytes } };
  };

  const whole = build(draft.data, [], []);
  const wholeSize = measure(whole);
  if (fits(wholeSize)) return finish(whole, wholeSize);

  const data = draft.data as Record<string, unknown> | null;
  const list = spec?.list && data && Array.isArray(data[spec.list]) ? (data[spec.list] as unknown[]) : undefined;
  const cutWarning = limits.maxTokens !== undefined ? `result cut to fit max_tokens=${limits.maxTokens}` : `result cut to the ${maxBytes}-byte cap`;

  let base: unknown = draft.data;
  let omitted: Omitted[] = [];
  if (list && spec?.list) {
    const field = spec.list;
    const omittedOf = (k: number, labels: boolean): Omitted[] => {
      const dropped = list.slice(k);
      if (dropped.length === 0) return [];
      return [{ field, count: dropped.length, ...(labels && spec.label ? { items: dropped.slice(0, MAX_OMITTED_LABELS).map(spec.label) } : {}) }];
    };
    const withItems = (k: number, labels: boolean): Envelope => build({ ...data!, [field]: list.slice(0, k) }, omittedOf(k, labels), k < list.length ? [cutWarning] : []);
    // largest k that fits (size grows with k: binary search); the labels of what was dropped are
    // given up before the last whole item is. Not even one item: too_large, below.
    for (const labels of [true, false]) {
      const best = largestFitting(list.length - 1, (k) => withItems(k, labels), measure, fits);
      if (best && best.k >= 1) return finish(withItems(best.k, labels), best.size);
    }
    base = { ...data!, [field]: [] };
    omitted = omittedOf(0, false);
  }

  if (spec?.lines && base && typeof (base as Record<string, unknown>)[spec.lines.field] === 'string') {
    const { field, keep } = spec.lines;
    const lines = ((base as Record<string, unknown>)[field] as string).split('\n');
    const withLines = (n: number): Envelope =>
      build(keep(base, n), [...omitted, ...(n < lines.length ? [{ field, count: lines.length - n }] : [])], [cutWarning]);
    const best = largestFitting(lines.length - 1, withLines, measure, fits);
    if (best && best.k >= 1) return finish(withLines(best.k), best.size);
  }

  // the failure must fit the budget too (max_tokens is at least 64): say it briefly, the hint only if it fits
  const need = limits.maxTokens !== undefined ? `max_tokens=${limits.maxTokens} (needs ${wholeSize.tokens ?? '?'})` : `the ${maxBytes}-byte cap (needs ${wholeSize.bytes})`;
  const failure = (hint: boolean): Envelope => ({
    ...build({ message: `over ${need}`, ...(hint ? { hint: 'raise max_tokens, or ask for less (fewer results, fewer lines)' } : {}), reason: 'TOO_LARGE' }, [], []),
    ok: false,
    error: 'too_large',
  });
  const withHint = failure(true);
  const hintSize = measure(withHint);
  if (fits(hintSize)) return finish(withHint, hintSize);
  const bare = failure(false);
  return finish(bare, measure(bare));
}

/** The largest k in [0, max] whose envelope fits, by binary search (sizes grow with k); undefined if none does. */
function largestFitting(
  max: number,
  at: (k: number) => Envelope,
  measure: (env: Envelope) => { bytes: number; tokens?: number },
  fits: (m: { bytes: number; tokens?: number }) => boolean,
): { k: number; size: { bytes: number; tokens?: number } } | undefined {
  let lo = 0;
  let hi = max;
  let best: { k: number; size: { bytes: number; tokens?: number } } | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const size = measure(at(mid));
    if (fits(size)) {
      best = { k: mid, size };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
