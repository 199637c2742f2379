/**
 * Query understanding for long natural-language input (issue bodies, commit messages, stack
 * traces, error logs): what to leave out, and which words say the most. Pure; see docs/DESIGN.md
 * "Query understanding".
 */
import { parseFrames, type Frame, type FrameFate } from './traceback.js';

/** What a long query says, once the noise is out. */
export interface UnderstoodQuery {
  /** The text to search: boilerplate, environment dumps, URLs and separators removed. */
  readonly text: string;
  /** The first meaningful line (an issue title, a commit subject), conventional-commit prefix removed. */
  readonly title: string;
  /**
   * Words written as code: inside backticks or fenced blocks, in stack-trace frames, exception
   * and error names, compound identifiers (camelCase, snake_case, dotted, paths). Lowercase.
   */
  readonly code: ReadonlySet<string>;
  /** Words only the text's fenced code blocks hold (the user's own code), lowercase. */
  readonly fenceOnly: ReadonlySet<string>;
}

/** Issue-template headings and prompts that say nothing about the code. */
const TEMPLATE_LINE_RE =
  /^\s*(?:#{1,6}\s*)?(?:\*\*)?(?:describe the bug|bug report|bug description|steps to reproduce(?: the (?:behaviou?r|bug|issue|problem))?|to reproduce|reproduction|expected (?:behaviou?r|result)|actual (?:behaviou?r|result)|current behaviou?r|additional (?:context|information)|environment|screenshots?|system info(?:rmation)?|checklist|is your feature request related to a problem\??|describe the solution you'd like|describe alternatives you've considered|what happened\??|what did you expect to happen\??|minimal reproducible example|version information|related issues?|description|types? of changes?|motivation and context|how has this been tested\??|proposed changes)(?:\*\*)?\s*:?\s*$/i;
/** `- OS: macOS 14`, `Python version: 3.12.1`, `node v20.1.0`: environment dumps. */
const ENV_LINE_RE =
  /^\s*(?:[-*]\s*)?(?:os|platform|system|version|python(?: version)?|node(?:\.js)?(?: version)?|npm|yarn|pnpm|browser|go version|rustc|cargo|java(?: version)?|jdk|kernel|arch(?:itecture)?|cpu|memory|ide|editor|shell|terminal|\w+ version)\s*[:=]\s*(?:\S+(?:\s+\S+){0,3}\s*$|.*\d+\.\d+)/i;
const VERSION_ONLY_RE = /^\s*(?:[-*]\s*)?[\w.@/-]*\s*v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?\s*$/;
const CHECKBOX_RE = /^\s*[-*]\s*\[[ xX]\]/;
const SEPARATOR_RE = /^\s*(?:[-=*_]{3,}|<!--.*-->)\s*$/;
const TRAILER_RE = /^\s*(?:signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|change-id|cc|refs?|see also)\s*:/i;
const URL_RE = /\bhttps?:\/\/\S+/g;
/** `#5905`, `(#7814)`, `GH-12`: references to issues and pull requests, never words of the code. */
const ISSUE_REF_RE = /(?<![\w#&])(?:#|GH-)\d+\b/g;
/** A list item or heading: where a checkbox item's wrapped text ends. */
const BLOCK_START_RE = /^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|```|~~~)/;
const HTML_COMMENT_RE = /<!--[\s\S]*?-->/g;
/** `feat(router): `, `fix: `, `[core] `: a commit subject's category, not its content. */
const CONVENTIONAL_RE = /^\s*(?:[a-z][\w-]{0,15}(?:\([^)]*\))?!?:\s+|\[[^\]]{1,30}\]\s+)/;

const BACKTICK_RE = /`([^`\n]{1,200})`/g;
const FENCE_RE = /```[^\n]*\n([\s\S]*?)(?:```|$)/g;
/** `at foo.bar (src/x.js:10:5)`, `at src/x.js:10:5`. */
const JS_FRAME_RE = /^\s*at\s+(?:async\s+)?([\w$.<>[\] ]+?)\s+\(([^()\s]+?):\d+(?::\d+)?\)|^\s*at\s+([^()\s]+?):\d+(?::\d+)?\s*$/gm;
/** `File "pkg/mod.py", line 10, in func`. */
const PY_FRAME_RE = /^\s*File "([^"]+)", line \d+, in ([\w<>.]+)/gm;
/** Go `pkg.Func(...)` + `\t/path/file.go:12`, Rust `at src/main.rs:10:5`, Java `at a.b.C.m(C.java:10)`. */
const FILE_LINE_RE = /([\w./-]+\.(?:go|rs|java|kt|py|rb|php|cs|c|cc|cpp|h|hpp|ts|tsx|js|jsx|mjs|cjs|swift|scala)):\d+/g;
const JAVA_FRAME_RE = /^\s*at\s+([\w$.]+)\([\w$]+\.\w+:\d+\)/gm;
const EXCEPTION_RE = /\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Panic|Warning|Fault))\b/g;
const IDENT_RE = /[A-Za-z_$][\w$]*(?:(?:\.|::|->|\/)[A-Za-z_$][\w$]*)*/g;

/** Compound identifiers: a case change inside, an underscore between letters, or qualified. */
function isCodeLike(token: string): boolean {
  return /[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z0-9]_[A-Za-z0-9]|\.|::|->|\//.test(token) && /[A-Za-z]/.test(token);
}

function addWords(into: Set<string>, text: string): void {
  for (const m of text.matchAll(/[\p{L}\p{N}_$]+/gu)) if (m[0].length > 1) into.add(m[0].toLowerCase());
}

/** Removes what says nothing about the code; keeps line structure. */
export function stripNoise(text: string): string {
  const out: string[] = [];
  // inside a checkbox item: its wrapped lines (up to a blank line or the next item) are template text too
  let inCheckbox = false;
  for (const line of text.replace(HTML_COMMENT_RE, ' ').split('\n')) {
    if (CHECKBOX_RE.test(line)) {
      inCheckbox = true;
      continue;
    }
    if (inCheckbox && line.trim() !== '' && !BLOCK_START_RE.test(line) && !SEPARATOR_RE.test(line)) continue;
    inCheckbox = false;
    if (TEMPLATE_LINE_RE.test(line) || ENV_LINE_RE.test(line) || VERSION_ONLY_RE.test(line) || SEPARATOR_RE.test(line) || TRAILER_RE.test(line)) continue;
    out.push(line.replace(URL_RE, ' ').replace(ISSUE_REF_RE, ' '));
  }
  return out.join('\n');
}

/** How a long query is understood beyond the defaults. */
export interface UnderstandOptions {
  /**
   * What becomes of each stack-trace frame (traceback.ts `frameFate`): `drop` leaves out its line and
   * the source line under it, `{ path }` writes its file as the index holds it. Default: all kept.
   */
  readonly frames?: ((frame: Frame) => FrameFate) | undefined;
}

/** The text with each frame's fate applied: dropped frames' lines out, rewritten paths in. */
export function applyFrameFates(text: string, fate: (frame: Frame) => FrameFate): string {
  const frames = parseFrames(text);
  if (frames.length === 0) return text;
  const lines = text.split('\n');
  const gone = new Set<number>();
  for (const f of frames) {
    const what = fate(f);
    if (what === 'drop') for (const i of f.lines) gone.add(i);
    else if (what !== 'keep') lines[f.lines[0]!] = lines[f.lines[0]!]!.replace(f.path, () => what.path);
  }
  return lines.filter((_l, i) => !gone.has(i)).join('\n');
}

/** The words of the fenced blocks that the text outside them does not use. */
function fenceOnlyWords(text: string): Set<string> {
  const inside = new Set<string>();
  for (const m of text.matchAll(FENCE_RE)) addWords(inside, m[1]!);
  if (inside.size === 0) return inside;
  const outside = new Set<string>();
  addWords(outside, text.replace(FENCE_RE, ' '));
  for (const w of outside) inside.delete(w);
  return inside;
}

export function understandQuery(raw: string, options: UnderstandOptions = {}): UnderstoodQuery {
  const stripped = stripNoise(raw);
  const text = options.frames ? applyFrameFates(stripped, options.frames) : stripped;
  // the title is the first line of prose: not a code fence, a traceback header or a stack frame
  const firstLine = text.split('\n').find((l) => /[\p{L}\p{N}]/u.test(l) && !/^\s*(?:```|~~~|Traceback \(most recent call last\)|at\s+\S)/.test(l)) ?? '';
  const title = firstLine.replace(CONVENTIONAL_RE, '').trim();
  const code = new Set<string>();
  for (const m of text.matchAll(BACKTICK_RE)) addWords(code, m[1]!);
  for (const m of text.matchAll(FENCE_RE)) for (const id of m[1]!.matchAll(IDENT_RE)) if (isCodeLike(id[0])) addWords(code, id[0]);
  for (const re of [JS_FRAME_RE, PY_FRAME_RE, JAVA_FRAME_RE]) for (const m of text.matchAll(re)) for (const g of m.slice(1)) if (g) addWords(code, g);
  for (const m of text.matchAll(FILE_LINE_RE)) addWords(code, m[1]!);
  for (const m of text.matchAll(EXCEPTION_RE)) code.add(m[1]!.toLowerCase());
  for (const m of text.matchAll(IDENT_RE)) if (isCodeLike(m[0])) addWords(code, m[0]);
  return { text, title, code, fenceOnly: fenceOnlyWords(text) };
}
