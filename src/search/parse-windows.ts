import type { Tree } from 'web-tree-sitter';
import type { LoadedGrammar } from '../parse/grammars.js';
import { findDefinitions, runQuery, symbolsOf } from '../parse/syntax-symbols.js';
import type { DefinitionSpan } from '../store/structure-repo.js';

/**
 * Windows: the parts of a file a reference search parses instead of the whole file.
 *
 * The index keeps every definition's span from the whole-file parse. A window is a run of whole
 * lines: the lines of one or more overlapping outermost definitions, or a gap between them
 * (imports, top-level statements). A window that is one large definition holding others (a class,
 * a namespace) is cut further: its head line, some of its body and its closing line, parsed as
 * one text, a smaller copy of the definition. Parsed on its own, a window gives the same tree as
 * the whole-file parse there when it starts at a statement boundary; that is checked, not
 * assumed: a window is used only when its parse has no error and finds exactly the definitions
 * the index holds on its lines, at the same places (names, kinds, containers, lines and columns).
 * A window parsed out of its context (a method without its class, a property of an object
 * literal, an indented Python block) fails that check, and the caller parses the whole file.
 */

/** A definition as the index stores it (1-based lines and columns). */
export type StoredDefinition = DefinitionSpan;

/**
 * Lines `first`–`last` (0-based, inclusive) of a file, the lines it answers for, parsed together
 * with the `context` lines (the head and closing lines of the definitions it was cut from).
 */
export interface LineWindow {
  readonly first: number;
  readonly last: number;
  /** The stored definitions inside `first`–`last`. */
  readonly definitions: readonly StoredDefinition[];
  /** 0-based lines outside `first`–`last` parsed with them, ascending. */
  readonly context: readonly number[];
  /** The definitions whose head and closing lines are in the text but not all of their body. */
  readonly cut: readonly StoredDefinition[];
}

/** Char offset where each line of `text` starts, then text.length. */
export function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  out.push(text.length);
  return out;
}

/**
 * Lines `first`–`last` cut into windows, in order, covering them all: the merged line spans of the
 * stored definitions (two that share a line are one window) and the gaps between them.
 */
export function lineWindows(definitions: readonly StoredDefinition[], first: number, last: number, parent?: Pick<LineWindow, 'context' | 'cut'>): LineWindow[] {
  const context = parent?.context ?? [];
  const cut = parent?.cut ?? [];
  const sorted = [...definitions].sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  const spans: Array<{ first: number; last: number; definitions: StoredDefinition[]; context: readonly number[]; cut: readonly StoredDefinition[] }> = [];
  for (const d of sorted) {
    const from = Math.max(first, d.startLine - 1);
    const to = Math.min(last, Math.max(from, d.endLine - 1));
    if (from > last) continue;
    const top = spans[spans.length - 1];
    if (top && from <= top.last) {
      top.last = Math.max(top.last, to);
      top.definitions.push(d);
    } else spans.push({ first: from, last: to, definitions: [d], context, cut });
  }
  const out: LineWindow[] = [];
  let next = first;
  for (const s of spans) {
    if (s.first > next) out.push({ first: next, last: s.first - 1, definitions: [], context, cut });
    out.push(s);
    next = s.last + 1;
  }
  if (next <= last) out.push({ first: next, last, definitions: [], context, cut });
  return out;
}

/**
 * The smaller windows of a window that is one definition holding others, its first line the head
 * and its last the closing line with no other definition on them: one for the head line (parsed
 * with the closing line), the windows of its body (each parsed with the head and closing lines),
 * one for the closing line (parsed with the head). Undefined for any other window.
 */
export function bodyWindows(window: LineWindow): LineWindow[] | undefined {
  const [first, last] = [window.first, window.last];
  const outer = window.definitions.filter((d) => d.startLine - 1 === first && d.endLine - 1 === last);
  const head = outer[0];
  if (outer.length !== 1 || !head || last - first < 2) return undefined;
  const inner = window.definitions.filter((d) => d !== head);
  if (inner.length === 0 || inner.some((d) => d.startLine - 1 <= first || d.endLine - 1 >= last)) return undefined;
  const withLines = (lines: readonly number[]): number[] => [...window.context, ...lines].sort((a, b) => a - b);
  const cut = [...window.cut, head];
  return [
    { first, last: first, definitions: [], context: withLines([last]), cut },
    ...lineWindows(inner, first + 1, last - 1, { context: withLines([first, last]), cut }),
    { first: last, last, definitions: [], context: withLines([first]), cut },
  ];
}

/** The index of the window holding 0-based line `line` among windows in line order covering it. */
export function windowAt(windows: readonly LineWindow[], line: number): number {
  let lo = 0;
  let hi = windows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (windows[mid]!.first <= line) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The text a window parses, and where its own lines start in it. */
export interface WindowText {
  readonly text: string;
  /** Char offset of line `first` in `text`. */
  readonly from: number;
  /** The 0-based line of `text` where line `first` is. */
  readonly line: number;
  /** Text line (0-based) → file line (0-based). */
  readonly lines: readonly number[];
}

/** The context and own lines of `window`, in file order, as one text. */
export function windowText(text: string, starts: readonly number[], window: LineWindow): WindowText {
  const lines = [...window.context.filter((l) => l < window.first)];
  const own = lines.length;
  for (let l = window.first; l <= window.last; l++) lines.push(l);
  lines.push(...window.context.filter((l) => l > window.last));
  let out = '';
  let from = 0;
  for (let i = 0; i < lines.length; i++) {
    if (i === own) from = out.length;
    const l = lines[i]!;
    let piece = text.slice(starts[l], starts[l + 1]);
    // a context line that was the file's last has no newline of its own
    if (i < lines.length - 1 && !piece.endsWith('\n')) piece += '\n';
    out += piece;
  }
  return { text: out, from, line: own, lines };
}

/**
 * True when the tree of a window's text (parsed on its own) has no error and finds exactly the
 * definitions the index holds there: the window's own and the ones it was cut from, at the same
 * places once their lines are mapped to the window's text.
 */
export function reproducesDefinitions(grammar: LoadedGrammar, tree: Tree, text: WindowText, window: LineWindow): boolean {
  if (tree.rootNode.hasError) return false;
  const found = symbolsOf(grammar, findDefinitions(grammar, runQuery(grammar, tree).definitions), text.text);
  const expected = [...window.cut, ...window.definitions];
  if (found.length !== expected.length) return false;
  const row = new Map(text.lines.map((l, i) => [l + 1, i + 1]));
  const key = (d: Omit<StoredDefinition, 'container'> & { container?: string | null | undefined }, start: number | undefined, end: number | undefined): string => `${start}:${d.startCol}:${end}:${d.endCol}:${d.kind}:${d.name}:${d.container ?? ''}`;
  const want = expected.map((d) => key(d, row.get(d.startLine), row.get(d.endLine))).sort();
  const got = found.map((d) => key(d, d.startLine, d.endLine)).sort();
  return want.every((k, i) => k === got[i]);
}
