import type { Tree } from 'web-tree-sitter';
import type { UseKind } from '../core/symbol.js';
import { loadGrammars } from '../parse/grammars.js';
import type { IndexStore } from '../store/index-store.js';
import { grammarLanguages } from '../parse/languages/registry.js';
import type { UsesCache } from './uses-cache.js';
import { fileStructure, usesIn, windowedUses, type FileStructure } from './window-uses.js';

/** Syntax trees kept at most by one ParsedFiles (the least recently used is deleted first). */
const MAX_TREES = 64;
/** Texts shorter than this are parsed whole, and windows this long are cut further where they can be. */
export const WINDOW_MIN_CHARS = 4096;

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
  /** Texts shorter than this are parsed whole (default WINDOW_MIN_CHARS; 0 tries windows on every file, Infinity never). */
  readonly windowMinChars?: number | undefined;
  /** Kinds kept across requests (an engine's): a name looked up again in the same content is not parsed again. */
  readonly cache?: UsesCache | undefined;
}

/** A parse of a whole file or of one window of it; `ok` false when a window's parse did not check out. */
interface Parsed {
  readonly tree: Tree;
  readonly ok: boolean;
}

/**
 * The files one request parses to classify identifier uses, kept for its duration: `related` asks
 * for up to 30 names, mostly in the same files, and each file is read and parsed once. A file is
 * parsed by windows where it can be (window-uses.ts: only the parts holding the name, each
 * checked against the index's definitions), else whole. Call `close()` when done (it frees the trees).
 */
export class ParsedFiles {
  private readonly trees = new Map<string, Parsed>();
  private readonly texts = new Map<string, string | undefined>();
  private readonly structures = new Map<number, FileStructure | undefined>();
  private readonly windowMinChars: number;
  private readonly cache: UsesCache | undefined;
  private charsParsed = 0;

  constructor(
    private readonly store: IndexStore,
    options: ParsedFilesOptions = {},
  ) {
    this.windowMinChars = options.windowMinChars ?? WINDOW_MIN_CHARS;
    this.cache = options.cache;
  }

  /** Characters handed to the parser so far (whole files and windows). */
  get parsedChars(): number {
    return this.charsParsed;
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
  async uses(file: FileToParse, name: string, text: string): Promise<ReadonlyMap<number, UseKind> | undefined> {
    const cached = this.cache?.get(file.hash, file.language, name);
    if (cached !== undefined) return cached ?? undefined;
    const uses = await this.parseUses(file, name, text);
    this.cache?.set(file.hash, file.language, name, uses ?? null);
    return uses;
  }

  close(): void {
    for (const p of this.trees.values()) p.tree.delete();
    this.trees.clear();
    this.texts.clear();
    this.structures.clear();
  }

  private async parseUses(file: FileToParse, name: string, text: string): Promise<Map<number, UseKind> | undefined> {
    const structure = await this.structureOf(file, text);
    if (!structure) return undefined;
    if (!this.trees.has(`${file.id}`) && text.length >= this.windowMinChars) {
      const byWindows = windowedUses(structure, text, name, this.windowMinChars, (key, slice, check) => this.parse(`${file.id}:${key}`, structure, slice, check));
      if (byWindows) return byWindows;
    }
    const whole = this.parse(`${file.id}`, structure, text, undefined);
    if (!whole) return undefined;
    return usesIn(structure.grammar, whole.tree, text, name, structure.symbols, structure.imports);
  }

  private async structureOf(file: FileToParse, text: string): Promise<FileStructure | undefined> {
    if (this.structures.has(file.id)) return this.structures.get(file.id);
    let structure: FileStructure | undefined;
    if (hasOwnGrammar(file.language)) {
      const grammar = (await loadGrammars([file.language])).get(file.language);
      if (grammar) {
        const symbols = this.store.read(() => this.store.structure.definitionSpans(file.id));
        const imports = this.store.read(() => this.store.structure.importLines(file.id));
        structure = fileStructure(grammar, text, symbols, imports);
      }
    }
    this.structures.set(file.id, structure);
    return structure;
  }

  /** The tree of `text` (a whole file, or a window of it that `check` accepts or not), parsed once per request. */
  private parse(key: string, structure: FileStructure, text: string, check: ((tree: Tree) => boolean) | undefined): Parsed | undefined {
    const kept = this.trees.get(key);
    if (kept) {
      this.trees.delete(key);
      this.trees.set(key, kept);
      return kept;
    }
    const tree = structure.grammar.parser.parse(text);
    this.charsParsed += text.length;
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
