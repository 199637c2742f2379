import type { TokenCounter } from '../../index.js';

/**
 * A tool result as text for a model: a head (what was asked, counts), the items best first (a
 * search hit with its fenced snippet, a line of a file, a file of references), and a tail. Many
 * MCP clients hand the model only the text content, so this carries the whole result; to fit a
 * budget, whole items are dropped from the end, never part of one.
 */
export interface TextDoc {
  readonly head: readonly string[];
  readonly items: readonly string[];
  /** What an item is, plural, for the line saying how many were left out (`results`, `lines`). */
  readonly noun: string;
  /** Joins the items: a blank line between blocks (default), one newline between lines. */
  readonly separator?: string;
  /** Put around the kept items, e.g. the fence around the lines of a file. */
  readonly wrap?: { readonly open: string; readonly close: string };
  /** Lines after the items (alternatives, a hash to quote back). */
  readonly tail?: readonly string[];
}

export interface TextLimits {
  /** UTF-8 bytes the text may take. */
  readonly maxBytes: number;
  readonly maxTokens?: number | undefined;
  readonly counter?: TokenCounter | undefined;
}

/** Fence languages for file extensions a fence tag is commonly written for; the rest get none. */
const FENCE_TAGS: Readonly<Record<string, string>> = {
  ts: 'typescript', tsx: 'tsx', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'jsx', mjs: 'javascript', cjs: 'javascript',
  py: 'python', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', swift: 'swift', rb: 'ruby', php: 'php', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp',
  hpp: 'cpp', cs: 'csharp', sh: 'bash', bash: 'bash', md: 'markdown', json: 'json', yaml: 'yaml', yml: 'yaml', toml: 'toml', sql: 'sql',
  html: 'html', css: 'css', scss: 'scss', vue: 'vue', lua: 'lua', scala: 'scala', zig: 'zig', ex: 'elixir', exs: 'elixir',
};

/** Language names scry uses that are not fence tags as they are. */
const LANGUAGE_TAGS: Readonly<Record<string, string>> = { text: '', unknown: '', plaintext: '' };

/** The fence tag for a language name from the index, or from a path's extension when none is known. */
export function fenceTag(language: string | undefined, path?: string): string {
  if (language !== undefined && language !== '') return LANGUAGE_TAGS[language] ?? language.toLowerCase();
  const ext = path?.split('/').pop()?.split('.').slice(1).pop()?.toLowerCase();
  return ext !== undefined ? (FENCE_TAGS[ext] ?? '') : '';
}

/** A fence longer than any run of backticks in the text, so the text cannot close it early. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Text in a fenced block tagged with its language. */
export function fenced(text: string, tag: string): string {
  const fence = fenceFor(text);
  return `${fence}${tag}\n${text.endsWith('\n') ? text.slice(0, -1) : text}\n${fence}`;
}

/**
 * Lines of a text numbered from `first`, the numbers right-aligned: `  9  x`, ` 10  y`. With
 * `last`, the text holds exactly the lines first..last (a trailing newline then ends an empty
 * last line); without it, a trailing newline only ends the text.
 */
export function numberedLines(text: string, first: number, last?: number): string[] {
  const all = text.split('\n');
  const lines = last !== undefined ? all.slice(0, Math.max(1, last - first + 1)) : text.endsWith('\n') ? all.slice(0, -1) : all;
  const width = String(first + lines.length - 1).length;
  return lines.map((line, i) => `${String(first + i).padStart(width)}  ${line}`);
}

/** `path:start-end`, or `path:line` for one line. */
export function span(path: string, start: number, end: number): string {
  return end !== start ? `${path}:${start}-${end}` : `${path}:${start}`;
}

/** A quoted argument for a head line, cut so a long query cannot crowd out the result. */
export function quoted(value: string, max = 120): string {
  const one = value.replace(/\s+/g, ' ').trim();
  return JSON.stringify(one.length <= max ? one : `${one.slice(0, max - 1)}…`);
}

/** `1 result`, `2 results`. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The document with its first `keep` items; `cut` says why the rest was left out. */
function compose(doc: TextDoc, keep: number, cut: string): string {
  const parts: string[] = [];
  if (doc.head.length > 0) parts.push(doc.head.join('\n'));
  const kept = doc.items.slice(0, keep);
  if (kept.length > 0) {
    const body = kept.join(doc.separator ?? '\n\n');
    parts.push(doc.wrap ? `${doc.wrap.open}\n${body}\n${doc.wrap.close}` : body);
  }
  const left = doc.items.length - keep;
  if (left > 0) parts.push(`[${left} more ${doc.noun} left out of this text ${cut}]`);
  if (doc.tail && doc.tail.length > 0) parts.push(doc.tail.join('\n'));
  return parts.join('\n\n');
}

/**
 * The document as one text within the limits: all of it when it fits, else the head, the most
 * items that fit (found by binary search; sizes grow with the count) and a line saying how many
 * were left out, then the tail. If not even the head and the tail fit, the text is cut at a line
 * and says so. Deterministic; pure apart from the token counter.
 */
export function fitText(doc: TextDoc, limits: TextLimits): string {
  const fits = (text: string): boolean =>
    utf8(text) <= limits.maxBytes && (limits.maxTokens === undefined || !limits.counter || limits.counter.count(text) <= limits.maxTokens);
  const cut = limits.maxTokens !== undefined ? `to fit max_tokens=${limits.maxTokens}` : `to fit the ${limits.maxBytes}-byte cap`;
  const whole = compose(doc, doc.items.length, cut);
  if (fits(whole)) return whole;
  let lo = 0;
  let hi = doc.items.length - 1;
  let best: string | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const text = compose(doc, mid, cut);
    if (fits(text)) {
      best = text;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best !== undefined) return best;
  return firstLinesThatFit(compose(doc, 0, cut), fits, cut);
}

/** The longest run of whole first lines that fits with a closing note (a head alone over budget). */
function firstLinesThatFit(text: string, fits: (text: string) => boolean, cut: string): string {
  const lines = text.split('\n');
  const note = (n: number): string => `${lines.slice(0, n).join('\n')}\n[text cut after ${n} lines ${cut}]`;
  let lo = 0;
  let hi = lines.length;
  let best = `[text left out ${cut}]`;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (fits(note(mid))) {
      best = note(mid);
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
