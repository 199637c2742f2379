import type { Tree } from 'web-tree-sitter';
import type { UseKind } from '../core/symbol.js';
import type { LoadedGrammar } from '../parse/grammars.js';
import { collectNameUses, unpackUses } from '../parse/name-uses.js';
import { bodyWindows, lineStarts, lineWindows, reproducesDefinitions, windowAt, windowText, type LineWindow, type StoredDefinition } from './parse-windows.js';

/** When the windows holding a name's occurrences add up to more than this share of the text, the whole text is parsed. */
const WINDOW_MAX_SHARE = 0.5;

/** What a file's identifier uses are classified with: its grammar, the index's definitions and imports, its windows. */
export interface FileStructure {
  readonly grammar: LoadedGrammar;
  readonly symbols: readonly StoredDefinition[];
  readonly imports: ReadonlyArray<{ readonly line: number }>;
  /** Char offset of each line's start, then the text's length. */
  readonly starts: readonly number[];
  readonly windows: readonly LineWindow[];
  /** The windows of a definition's body, once asked for (bodyWindows). */
  readonly bodies: Map<LineWindow, LineWindow[] | undefined>;
}

export function fileStructure(grammar: LoadedGrammar, text: string, symbols: readonly StoredDefinition[], imports: ReadonlyArray<{ readonly line: number }>): FileStructure {
  const starts = lineStarts(text);
  return { grammar, symbols, imports, starts, windows: lineWindows(symbols, 0, starts.length - 2), bodies: new Map() };
}

/** A parse of a text under a cache key; `ok` is what `check` said of the new tree (true without a check). */
export type ParseText = (key: string, text: string, check: ((tree: Tree) => boolean) | undefined) => { readonly tree: Tree; readonly ok: boolean } | undefined;

/**
 * Offset → kind of each identifier occurrence of `name` in `text`, from the windows that hold it
 * (parse-windows.ts); undefined when the whole text should be parsed instead: no definitions to
 * cut by, windows adding up to more than half of the text, or a window whose parse does not
 * check out. A window of `minChars` or more is cut further where it can be.
 */
export function windowedUses(structure: FileStructure, text: string, name: string, minChars: number, parse: ParseText): Map<number, UseKind> | undefined {
  if (structure.symbols.length === 0) return undefined;
  const { starts } = structure;
  const needed = new Set<LineWindow>();
  let line = 0;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
    while (starts[line + 1]! <= at) line++;
    needed.add(windowOf(structure, line, minChars));
  }
  let chars = 0;
  for (const w of needed) chars += starts[w.last + 1]! - starts[w.first]!;
  if (chars > text.length * WINDOW_MAX_SHARE) return undefined;
  const out = new Map<number, UseKind>();
  for (const window of [...needed].sort((a, b) => a.first - b.first)) {
    const slice = windowText(text, starts, window);
    const parsed = parse(`${window.first}:${window.last}`, slice.text, (tree) => reproducesDefinitions(structure.grammar, tree, slice, window));
    if (!parsed?.ok) return undefined;
    // the index's definitions and imports on the window's own lines, at their lines in its text
    const shift = slice.line - window.first;
    const own = (l: number): boolean => l - 1 >= window.first && l - 1 <= window.last;
    const symbols = structure.symbols.filter((s) => own(s.startLine)).map((s) => ({ name: s.name, startLine: s.startLine + shift }));
    const imports = structure.imports.filter((i) => own(i.line)).map((i) => ({ line: i.line + shift }));
    const end = slice.from + (starts[window.last + 1]! - starts[window.first]!);
    const base = starts[window.first]! - slice.from;
    for (const [offset, kind] of usesIn(structure.grammar, parsed.tree, slice.text, name, symbols, imports)) if (offset >= slice.from && offset < end) out.set(base + offset, kind);
  }
  return out;
}

/** The smallest window holding 0-based `line`: one of `minChars` or more is cut further where it can be (bodyWindows). */
function windowOf(structure: FileStructure, line: number, minChars: number): LineWindow {
  const { starts, bodies } = structure;
  let window = structure.windows[windowAt(structure.windows, line)]!;
  while (starts[window.last + 1]! - starts[window.first]! >= minChars) {
    if (!bodies.has(window)) bodies.set(window, bodyWindows(window));
    const body = bodies.get(window);
    if (!body) break;
    window = body[windowAt(body, line)]!;
  }
  return window;
}

/** Offset (in `text`) → kind of each identifier occurrence of `name` in a tree of `text`. */
export function usesIn(
  grammar: LoadedGrammar,
  tree: Tree,
  text: string,
  name: string,
  symbols: ReadonlyArray<{ readonly name: string; readonly startLine: number }>,
  imports: ReadonlyArray<{ readonly line: number }>,
): Map<number, UseKind> {
  const uses = collectNameUses(grammar, tree, text, symbols, imports, name).find((u) => u.name === name);
  return unpackUses(uses?.uses ?? '');
}
