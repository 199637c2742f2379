/**
 * Content timestamps (issue 22): when what a chunk says was written, for the recency boost. A
 * document's own dates win over the file system's: a message's or section's date in its heading
 * path (mail threads, chat exports: `### Ann — 2024-03-01T10:00:00Z`), else the latest
 * date-time written in a document chunk (a chat message's timestamp), else the file's
 * (frontmatter `updated`, `date`, a mail's date), else its last commit (git), else its mtime.
 * Pure: no clock, no I/O.
 */

/** `2024-03-01`, `2024-03-01T10:00`, `2024-03-01 10:00:00Z`, `2024-03-01T10:00:00.000+02:00`. */
const DATE = /\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s?(Z|[+-]\d{2}:?\d{2})?)?\b/g;
/** Dates before this or more than a day after `latest` are taken for noise (version numbers, typos). */
const EARLIEST = Date.UTC(1990, 0, 1);

function parseMatch(m: RegExpExecArray): number | undefined {
  const [, y, mo, d, h, mi, s, zone] = m;
  const iso = `${y}-${mo}-${d}T${h ?? '00'}:${mi ?? '00'}:${s ?? '00'}${zone ? (zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone) : 'Z'}`;
  const t = Date.parse(iso);
  return Number.isFinite(t) && t >= EARLIEST ? t : undefined;
}

/** The latest plausible date in `text` (at most `latest`), or undefined. `timed`: only date-times, not bare dates. */
export function latestDate(text: string, latest: number, timed = false): number | undefined {
  let best: number | undefined;
  for (const m of text.matchAll(DATE)) {
    if (timed && m[4] === undefined) continue;
    const t = parseMatch(m as RegExpExecArray);
    if (t !== undefined && t <= latest && (best === undefined || t > best)) best = t;
  }
  return best;
}

/** A metadata value as a timestamp: a `Date`-parsable string, or a number of ms. */
function asTime(v: unknown, latest: number): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v >= EARLIEST && v <= latest) return v;
  if (typeof v === 'string') return latestDate(v, latest) ?? (Number.isFinite(Date.parse(v)) && Date.parse(v) <= latest ? Date.parse(v) : undefined);
  return undefined;
}

/** A file's timestamp: frontmatter/mail `updated`, `modified`, `date`, else `fallbackMs` (its last commit, else its mtime); null when none is usable. */
export function fileTimestamp(metadata: Readonly<Record<string, unknown>> | undefined, mtimeMs: number, latest: number): number | null {
  for (const key of ['updated', 'modified', 'lastmod', 'date', 'created']) {
    const t = asTime(metadata?.[key], latest);
    if (t !== undefined) return t;
  }
  return mtimeMs > 0 ? mtimeMs : null;
}

/** A chunk's timestamp: its heading path's date, else (documents) its latest written date-time, else the file's. */
export function chunkTimestamp(chunk: { readonly symbol?: string | null | undefined; readonly container?: string | null | undefined }, text: string, document: boolean, fileTs: number | null, latest: number): number | null {
  const heading = latestDate(`${chunk.container ?? ''} ${chunk.symbol ?? ''}`, latest);
  if (heading !== undefined) return heading;
  if (document) {
    const written = latestDate(text, latest, true);
    if (written !== undefined) return written;
  }
  return fileTs;
}
