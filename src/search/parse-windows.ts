import type { Tree } from 'web-tree-sitter';
import type { LoadedGrammar } from '../parse/grammars.js';
import { findDefinitions, runQuery, symbolsOf } from '../parse/syntax-symbols.js';

/**
 * Windows: the parts of a file a reference search parses instead of the whole file.
 *
 * The index keeps every definition's span from the whole-file parse. A window is a run of whole
 * lines: the lines of one or more overlapping outermost definitions, or a gap between them
 * (imports, top-level statements). Parsed on its own, a window gives the same tree as the
 * whole-file parse there when it starts at a statement boundary; that is checked, not assumed: a
 * window is used only when its parse has no error and finds exactly the definitions the index
 * holds on its lines (same names, kinds, containers and positions). A window parsed out of its
 * context (a method without its class, a property of an object literal, an indented Python
 * block) fails that check, and the caller parses the whole file instead.
 */

/** A definition as the index stores it (1-based lines and columns). */
export interface StoredDefinition {
  readonly name: string;
  readonly kind: string;
  readonly container: string | null;
  readonly startLine: number;
  readonly startCol: number;
  readonly endLine: number;
  readonly endCol: number;
}

/** Lines `first`–`last` (0-based, inclusive) of a file; `definitions` are the stored ones inside. */
export interface LineWindow {
  readonly first: number;
  readonly last: number;
  readonly definitions: readonly StoredDefinition[];
}

/** Char offset where each line of `text` starts, then text.length. */
export function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  out.push(text.length);
  return out;
}

/**
 * The file cut into windows, in order, covering lines 0 to `lineCount - 1`: the merged line spans
 * of the stored definitions (two that share a line are one window) and the gaps between them.
 */
export function lineWindows(definitions: readonly StoredDefinition[], lineCount: number): LineWindow[] {
  const sorted = [...definitions].sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  const spans: Array<{ first: number; last: number; definitions: StoredDefinition[] }> = [];
  for (const d of sorted) {
    const first = Math.max(0, d.startLine - 1);
    const last = Math.min(lineCount - 1, Math.max(first, d.endLine - 1));
    if (first > lineCount - 1) continue;
    const top = spans[spans.length - 1];
    if (top && first <= top.last) {
      top.last = Math.max(top.last, last);
      top.definitions.push(d);
    } else spans.push({ first, last, definitions: [d] });
  }
  const out: LineWindow[] = [];
  let next = 0;
  for (const s of spans) {
    if (s.first > next) out.push({ first: next, last: s.first - 1, definitions: [] });
    out.push(s);
    next = s.last + 1;
  }
  if (next < lineCount) out.push({ first: next, last: lineCount - 1, definitions: [] });
  return out;
}

/** The index of the window holding 0-based line `line` (windows cover every line, in order). */
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

/**
 * True when the tree of a window's text (parsed on its own) has no error and finds exactly the
 * window's stored definitions, at the same places once shifted by the window's first line.
 */
export function reproducesDefinitions(grammar: LoadedGrammar, tree: Tree, text: string, window: LineWindow): boolean {
  if (tree.rootNode.hasError) return false;
  const found = symbolsOf(grammar, findDefinitions(grammar, runQuery(grammar, tree).definitions), text);
  if (found.length !== window.definitions.length) return false;
  const key = (d: StoredDefinition, shift: number): string => `${d.startLine + shift}:${d.startCol}:${d.endLine + shift}:${d.endCol}:${d.kind}:${d.name}:${d.container ?? ''}`;
  const want = window.definitions.map((d) => key(d, 0)).sort();
  const got = found.map((d) => key({ ...d, container: d.container ?? null }, window.first)).sort();
  return want.every((k, i) => k === got[i]);
}
