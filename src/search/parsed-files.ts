import type { Tree } from 'web-tree-sitter';
import type { UseKind } from '../core/symbol.js';
import { loadGrammars, type LoadedGrammar } from '../parse/grammars.js';
import { collectNameUses, unpackUses } from '../parse/name-uses.js';
import type { IndexStore } from '../store/index-store.js';
import type { ImportRow, SymbolRow } from '../store/structure-repo.js';
import { grammarLanguages } from '../parse/languages/registry.js';

/** Syntax trees kept at most by one ParsedFiles (the least recently used is deleted first). */
const MAX_TREES = 64;

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

interface Parsed {
  readonly grammar: LoadedGrammar;
  readonly tree: Tree;
  readonly symbols: readonly SymbolRow[];
  readonly imports: readonly ImportRow[];
}

/**
 * The files one request parses to classify identifier uses, kept for its duration: `related` asks
 * for up to 30 names, mostly in the same files, and each file is read and parsed once. Call
 * `close()` when done (it frees the trees).
 */
export class ParsedFiles {
  private readonly trees = new Map<number, Parsed>();
  private readonly texts = new Map<string, string | undefined>();

  constructor(private readonly store: IndexStore) {}

  /** The stored text of a file (read once per request). */
  text(file: FileToParse): string | undefined {
    if (!this.texts.has(file.hash)) this.texts.set(file.hash, this.store.read(() => this.store.content.text(file.hash)));
    return this.texts.get(file.hash);
  }

  /** Offset → kind of each identifier occurrence of `name` in the file (see parseNameUses). */
  async uses(file: FileToParse, name: string, text: string): Promise<Map<number, UseKind> | undefined> {
    const parsed = await this.parsed(file, text);
    if (!parsed) return undefined;
    const uses = collectNameUses(parsed.grammar, parsed.tree, text, parsed.symbols, parsed.imports, name).find((u) => u.name === name);
    return unpackUses(uses?.uses ?? '');
  }

  close(): void {
    for (const p of this.trees.values()) p.tree.delete();
    this.trees.clear();
    this.texts.clear();
  }

  private async parsed(file: FileToParse, text: string): Promise<Parsed | undefined> {
    const kept = this.trees.get(file.id);
    if (kept) {
      this.trees.delete(file.id);
      this.trees.set(file.id, kept);
      return kept;
    }
    if (!hasOwnGrammar(file.language)) return undefined;
    const grammar = (await loadGrammars([file.language])).get(file.language);
    const tree = grammar?.parser.parse(text);
    if (!grammar || !tree) return undefined;
    const symbols = this.store.read(() => this.store.structure.inFile(file.path));
    const imports = this.store.read(() => this.store.structure.importsOf(file.path));
    const parsed = { grammar, tree, symbols, imports };
    this.trees.set(file.id, parsed);
    if (this.trees.size > MAX_TREES) {
      const [oldest, evicted] = this.trees.entries().next().value!;
      evicted.tree.delete();
      this.trees.delete(oldest);
    }
    return parsed;
  }
}
