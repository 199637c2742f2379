/**
 * What `scry ask` checks before it accepts an answer (seed 004 §12: "if it can't cite, it must ask
 * to retrieve more"): the `path:start-end` citations in the answer, and whether each points into
 * evidence the model was actually shown. Pure.
 */

/** A cited or seen line range of a file. */
export interface LineSpan {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** What separates citations in prose: whitespace, brackets, quotes, commas, semicolons. */
const SEPARATORS = /[\s()[\]{}<>`'",;*|]+/;
/** One token that is a citation: a path without `:`, `:line` or `:start-end`, maybe `:col`, maybe a full stop. */
const CITATION = /^([^:]+):(\d{1,7})(?:[-–](\d{1,7}))?(?::\d{1,7})?[.:]?$/;
/** Tokens longer than this are not read (no path is; it bounds the work on hostile text). */
const MAX_TOKEN = 1024;

/**
 * `path:start-end` (or `path:line`) citations in a text, in order, without repeats. A path has a
 * `/` or a `.` in it and no `:`; URLs (`https://host:443`) are not citations. Linear in the text:
 * it is split into tokens first, and each token is matched whole.
 */
export function parseCitations(text: string): LineSpan[] {
  const out: LineSpan[] = [];
  const seen = new Set<string>();
  for (const token of text.split(SEPARATORS)) {
    if (token.length > MAX_TOKEN) continue;
    const m = CITATION.exec(token);
    if (!m) continue;
    const path = m[1]!.replace(/^\.\//, '');
    const startLine = Number(m[2]);
    const endLine = m[3] === undefined ? startLine : Number(m[3]);
    if (!/[./]/.test(path) || path.includes('//') || startLine < 1 || endLine < startLine) continue;
    const key = `${path}:${startLine}-${endLine}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, startLine, endLine });
  }
  return out;
}

/**
 * The spans a tool result shows, found by shape anywhere in its data: `cite: "path:a-b"` strings,
 * and objects with a `path` and `start_line`/`end_line` (or `startLine`/`endLine`, or `line`).
 * An object with only a `path` adds the path with no range (any lines of it count as seen).
 */
export function spansIn(value: unknown, out: LineSpan[] = [], depth = 0): LineSpan[] {
  if (depth > 12 || typeof value !== 'object' || value === null) return out;
  if (Array.isArray(value)) {
    for (const v of value) spansIn(v, out, depth + 1);
    return out;
  }
  const o = value as Record<string, unknown>;
  if (typeof o.cite === 'string') out.push(...parseCitations(o.cite));
  if (typeof o.path === 'string') {
    const start = num(o.start_line) ?? num(o.startLine) ?? num(o.line);
    const end = num(o.end_line) ?? num(o.endLine) ?? start;
    out.push(start !== undefined && end !== undefined ? { path: o.path, startLine: start, endLine: Math.max(start, end) } : { path: o.path, startLine: 0, endLine: Number.MAX_SAFE_INTEGER });
  }
  for (const v of Object.values(o)) if (typeof v === 'object') spansIn(v, out, depth + 1);
  return out;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);

/** Citations whose path was never shown, or whose lines overlap nothing shown of that path. */
export function unbackedCitations(cited: readonly LineSpan[], seen: readonly LineSpan[]): LineSpan[] {
  return cited.filter((c) => !seen.some((s) => s.path === c.path && s.startLine <= c.endLine && c.startLine <= s.endLine));
}

/** Why an answer is not accepted, or undefined when it is: it cites nothing, or cites what was not shown. */
export function citationProblem(answer: string, seen: readonly LineSpan[]): string | undefined {
  if (answer.trim() === '') return 'the answer is empty';
  const cited = parseCitations(answer);
  if (cited.length === 0) return 'the answer cites no path:start-end';
  const bad = unbackedCitations(cited, seen);
  if (bad.length > 0) return `these citations point at nothing you were shown: ${bad.slice(0, 5).map((c) => `${c.path}:${c.startLine}-${c.endLine}`).join(', ')}`;
  return undefined;
}
