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
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Fits an envelope into the byte cap and the caller's token budget, deterministically: drop
 * whole list items from the end (the lowest-ranked), then whole lines of the text, listing what
 * was left out in `meta.omitted`. If even the smallest cut does not fit, the result is a
 * `too_large` failure that says how much would be needed. Pure apart from the token counter.
 */
export function boundEnvelope(draft: Draft, spec: BoundSpec | undefined, limits: BoundLimits = {}): Envelope {
  const maxBytes = Math.min(limits.maxBytes ?? MAX_ENVELOPE_BYTES, MAX_ENVELOPE_BYTES);
  const measure = (env: Envelope): { bytes: number; tokens?: number } => {
    // `bytes` is filled after measuring: reserve its widest value so the final size never grows
    const text = JSON.stringify({ ...env, meta: { ...env.meta, bytes: MAX_ENVELOPE_BYTES } });
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
    const withItems = (k: number): Envelope => {
      const dropped = list.slice(k);
      const om: Omitted[] = dropped.length === 0 ? [] : [{ field, count: dropped.length, ...(spec.label ? { items: dropped.slice(0, MAX_OMITTED_LABELS).map(spec.label) } : {}) }];
      return build({ ...data!, [field]: list.slice(0, k) }, om, dropped.length > 0 ? [cutWarning] : []);
    };
    // largest k that fits; size grows with k, so binary search
    let lo = 0;
    let hi = list.length - 1;
    let best = -1;
    let bestSize: { bytes: number; tokens?: number } | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = measure(withItems(mid));
      if (fits(m)) {
        best = mid;
        bestSize = m;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (best >= 1 || (best === 0 && !spec.lines)) return finish(withItems(best), bestSize!);
    base = { ...data!, [field]: list.slice(0, Math.max(best, 0)) };
    const dropped = list.slice(Math.max(best, 0));
    omitted = dropped.length > 0 ? [{ field, count: dropped.length, ...(spec.label ? { items: dropped.slice(0, MAX_OMITTED_LABELS).map(spec.label) } : {}) }] : [];
  }

  if (spec?.lines && base && typeof (base as Record<string, unknown>)[spec.lines.field] === 'string') {
    const { field, keep } = spec.lines;
    const lines = ((base as Record<string, unknown>)[field] as string).split('\n');
    const withLines = (n: number): Envelope =>
      build(keep(base, n), [...omitted, ...(n < lines.length ? [{ field, count: lines.length - n }] : [])], [cutWarning]);
    let lo = 1;
    let hi = lines.length - 1;
    let best = 0;
    let bestSize: { bytes: number; tokens?: number } | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = measure(withLines(mid));
      if (fits(m)) {
        best = mid;
        bestSize = m;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (best >= 1) return finish(withLines(best), bestSize!);
  }

  const need = limits.maxTokens !== undefined ? `max_tokens=${limits.maxTokens} (the full result is ${wholeSize.tokens ?? '?'} tokens)` : `the ${maxBytes}-byte cap (the full result is ${wholeSize.bytes} bytes)`;
  const failed: Envelope = build(
    { message: `the result does not fit ${need}, even cut to one item or line`, hint: 'raise max_tokens, or narrow the request (fewer results, a shorter line range)', reason: 'TOO_LARGE' },
    [],
    [],
  );
  return finish({ ...failed, ok: false, error: 'too_large' }, measure({ ...failed, ok: false, error: 'too_large' }));
}
