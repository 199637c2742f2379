import type { Tree } from 'web-tree-sitter';
import type { UseKind } from '../core/symbol.js';
import { loadGrammars, type LoadedGrammar } from '../parse/grammars.js';
import { collectNameUses, unpackUses } from '../parse/name-uses.js';
import type { IndexStore } from '../store/index-store.js';
import type { ImportRow, SymbolRow } from '../store/structure-repo.js';
import { grammarLanguages } from '../parse/languages/registry.js';
import { bodyWindows, lineStarts, lineWindows, reproducesDefinitions, windowAt, windowText, type LineWindow } from './parse-windows.js';

/** Syntax trees kept at most by one ParsedFiles (the least recently used is deleted first). */
const MAX_TREES = 64;
/** Texts shorter than this are parsed whole: the windows would save little. */
export const WINDOW_MIN_CHARS = 16_384;
/** When the windows holding a name's occurrences add up to more than this share of the text, the whole text is parsed. */
const WINDOW_MAX_SHARE = 0.5;

/** An indexed file to parse: its row id, path, language and content hash. */
export interface FileToParse {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly hash: string;
}

/** True when a file's language has a grammar of its own: its identifiers can be classified by parsing it. */
export function hasOwnGrammar(language: string): boolean {
  return grammarLanguages(language).includes(language);
}

export interface ParsedFilesOptions {
  /** Texts shorter than this are always parsed whole (default WINDOW_MIN_CHARS; 0 tries windows on every file). */
  readonly windowMinChars?: number | undefined;
}

/** A parse of a whole file (`first` 0) or of one window of it; `ok` false when a window's parse did not check out. */
interface Parsed {
  readonly tree: Tree;
  readonly ok: boolean;
}

/** What a file's uses are classified with: its definitions and imports from the index, and its windows. */
interface FileFacts {
  readonly grammar: LoadedGrammar;
  readonly symbols: readonly SymbolRow[];
  readonly imports: readonly ImportRow[];
  readonly starts: readonly number[];
  readonly windows: readonly LineWindow[];
  /** The windows of a module's body, once asked for (bodyWindows). */
  readonly bodies: Map<LineWindow, LineWindow[] | undefined>;
}

/**
 * The files one request parses to classify identifier uses, kept for its duration: `related` asks
 * for up to 30 names, mostly in the same files, and each file is read and parsed once. A large
 * file is parsed by windows (parse-windows.ts): only the windows holding the name, each checked
 * against the index's definitions, else the whole file. Call `close()` when done (it frees the trees).
 */
export class ParsedFiles {
  private readonly trees = new Map<string, Parsed>();
  private readonly texts = new Map<string, string | undefined>();
  private readonly facts = new Map<number, FileFacts | undefined>();
  private readonly windowMinChars: number;

  constructor(
    private readonly store: IndexStore,
    options: ParsedFilesOptions = {},
  ) {
    this.windowMinChars = options.windowMinChars ?? WINDOW_MIN_CHARS;
  }

  /** The stored text of a file (read once per request). */
  text(file: FileToParse): string | undefined {
    if (!this.texts.has(file.hash)) this.texts.set(file.hash, this.store.read(() => this.store.content.text(file.hash)));
    return this.texts.get(file.hash);
  }

  /**
   * Offset → kind of each identifier occurrence of `name` in the file; undefined when the file's
   * language has no grammar of its own or the grammar does not load.
   */
  async uses(file: FileToParse, name: string, text: string): Promise<Map<number, UseKind> | undefined> {
    const facts = await this.factsOf(file, text);
    if (!facts) return undefined;
    if (!this.trees.has(`${file.id}`) && text.length >= this.windowMinChars) {
      const byWindows = this.usesByWindows(file, facts, name, text);
      if (byWindows) return byWindows;
    }
    const whole = this.parse(`${file.id}`, facts.grammar, text, undefined);
    if (!whole) return undefined;
    return usesIn(facts, whole.tree, text, name, facts.symbols, facts.imports);
  }

  close(): void {
    for (const p of this.trees.values()) p.tree.delete();
    this.trees.clear();
    this.texts.clear();
    this.facts.clear();
  }

  /** The uses of `name` from the windows that hold it; undefined when the whole text should be parsed. */
  private usesByWindows(file: FileToParse, facts: FileFacts, name: string, text: string): Map<number, UseKind> | undefined {
    if (facts.symbols.length === 0) return undefined;
    const needed = new Set<LineWindow>();
    let line = 0;
    for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
      while (facts.starts[line + 1]! <= at) line++;
      needed.add(this.windowOf(facts, line));
    }
    let chars = 0;
    for (const w of needed) chars += facts.starts[w.last + 1]! - facts.starts[w.first]!;
    if (chars > text.length * WINDOW_MAX_SHARE) return undefined;
    const out = new Map<number, UseKind>();
    for (const window of [...needed].sort((a, b) => a.first - b.first)) {
      const slice = windowText(text, facts.starts, window);
      const parsed = this.parse(`${file.id}:${window.first}:${window.last}`, facts.grammar, slice.text, (tree) => reproducesDefinitions(facts.grammar, tree, slice, window));
      if (!parsed?.ok) return undefined;
      // the index's definitions and imports on the window's own lines, at their lines in its text
      const shift = slice.line - window.first;
      const own = (line: number): boolean => line - 1 >= window.first && line - 1 <= window.last;
      const symbols = facts.symbols.filter((s) => own(s.startLine)).map((s) => ({ name: s.name, startLine: s.startLine + shift }));
      const imports = facts.imports.filter((i) => own(i.line)).map((i) => ({ line: i.line + shift }));
      const end = slice.from + (facts.starts[window.last + 1]! - facts.starts[window.first]!);
      const base = facts.starts[window.first]! - slice.from;
      for (const [offset, kind] of usesIn(facts, parsed.tree, slice.text, name, symbols, imports)) if (offset >= slice.from && offset < end) out.set(base + offset, kind);
    }
    return out;
  }

  /** The smallest window holding 0-based `line`: a large module's body is cut further (bodyWindows). */
  private windowOf(facts: FileFacts, line: number): LineWindow {
    let window = facts.windows[windowAt(facts.windows, line)]!;
    while (facts.starts[window.last + 1]! - facts.starts[window.first]! >= this.windowMinChars) {
      if (!facts.bodies.has(window)) facts.bodies.set(window, bodyWindows(window));
      const body = facts.bodies.get(window);
      if (!body) break;
      window = body[windowAt(body, line)]!;
    }
    return window;
  }

  private async factsOf(file: FileToParse, text: string): Promise<FileFacts | undefined> {
    if (this.facts.has(file.id)) return this.facts.get(file.id);
    let facts: FileFacts | undefined;
    if (hasOwnGrammar(file.language)) {
      const grammar = (await loadGrammars([file.language])).get(file.language);
      if (grammar) {
        const symbols = this.store.read(() => this.store.structure.inFile(file.path));
        const imports = this.store.read(() => this.store.structure.importsOf(file.path));
        const starts = lineStarts(text);
        facts = { grammar, symbols, imports, starts, windows: lineWindows(symbols, 0, starts.length - 2), bodies: new Map() };
      }
    }
    this.facts.set(file.id, facts);
    return facts;
  }

  /** The tree of `text` (a whole file, or a window of it that `check` accepts or not), parsed once per request. */
  private parse(key: string, grammar: LoadedGrammar, text: string, check: ((tree: Tree) => boolean) | undefined): Parsed | undefined {
    const kept = this.trees.get(key);
    if (kept) {
      this.trees.delete(key);
      this.trees.set(key, kept);
      return kept;
    }
    const tree = grammar.parser.parse(text);
    if (!tree) return undefined;
    const parsed = { tree, ok: check === undefined || check(tree) };
    this.trees.set(key, parsed);
    if (this.trees.size > MAX_TREES) {
      const [oldest, evicted] = this.trees.entries().next().value!;
      evicted.tree.delete();
      this.trees.delete(oldest);
    }
    return parsed;
  }
}

/** Offset (in `text`) → kind of each identifier occurrence of `name` in a tree of `text`. */
function usesIn(
  facts: FileFacts,
  tree: Tree,
  text: string,
  name: string,
  symbols: ReadonlyArray<Pick<SymbolRow, 'name' | 'startLine'>>,
  imports: ReadonlyArray<Pick<ImportRow, 'line'>>,
): Map<number, UseKind> {
  const uses = collectNameUses(facts.grammar, tree, text, symbols, imports, name).find((u) => u.name === name);
  return unpackUses(uses?.uses ?? '');
}
