/**
 * What a definition is. Stable strings: they are stored, filtered on (`--kind`) and returned to
 * agents; add kinds, never rename one.
 */
export type SymbolKind =
  | 'function'
  | 'method'
  | 'class'
  | 'interface'
  | 'struct'
  | 'enum'
  | 'type'
  | 'variable'
  | 'constant'
  | 'module';

export const SYMBOL_KINDS: readonly SymbolKind[] = ['function', 'method', 'class', 'interface', 'struct', 'enum', 'type', 'variable', 'constant', 'module'];

/** A definition found in one file, as a parser reports it. Lines are 1-based; columns are 1-based, in UTF-16 code units. */
export interface SymbolDraft {
  readonly name: string;
  readonly kind: SymbolKind;
  /** Enclosing definitions, outermost first, e.g. `Foo.bar` for a function inside method `bar` of class `Foo`. */
  readonly container?: string | undefined;
  /** The declaration head, without the body, whitespace collapsed (`function parse(text: string): Ast`). */
  readonly signature: string;
  readonly startLine: number;
  readonly startCol: number;
  readonly endLine: number;
  readonly endCol: number;
  /** Visible outside its file (`export`, `pub`, capitalised in Go, not `_private` in Python...). */
  readonly exported: boolean;
}

/** How a file refers to another module. */
export type ImportKind = 'import' | 'export' | 'require' | 'include' | 'use';

/** One import (or re-export) statement of a file; `source` is as written, resolved later against the file list. */
export interface ImportDraft {
  /** The module specifier as written: `./util`, `os.path`, `github.com/x/y/pkg`, `stdio.h`. */
  readonly source: string;
  /** Names brought in (`*` for a namespace/wildcard import); empty for a side-effect import. */
  readonly names: readonly string[];
  readonly kind: ImportKind;
  readonly line: number;
}

/** How an identifier is used where it occurs in code (a mention in a comment or string is not one). */
export type UseKind = 'definition' | 'call' | 'import' | 'reference';

/**
 * The identifier occurrences of one file parsed with a grammar, by name: `uses` packs each
 * occurrence as `<delta><kind letter>`, space-separated, in source order: the UTF-16 offset in the
 * file minus the previous occurrence's (0 before the first), in base 36; kind d, c, i or r. Collected
 * at query time by a reference search and `related` (not stored since schema 11).
 */
export interface NameUsesDraft {
  readonly name: string;
  readonly uses: string;
}
