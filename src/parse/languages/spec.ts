import type { Node } from 'web-tree-sitter';

/**
 * What scry needs to know about one tree-sitter language: a few queries and node-type lists.
 * Adding a language is one file in this folder exporting a `LanguageSpec`, plus a line in
 * `registry.ts` (see docs/DESIGN.md "Adding a language").
 */
export interface LanguageSpec {
  /** scry language id (`discover/language.ts`), e.g. `typescript`. */
  readonly language: string;
  /** Grammar file base name in `@repomix/tree-sitter-wasms/out`: `tree-sitter-<grammar>.wasm`. */
  readonly grammar: string;
  /**
   * Definitions query. Each pattern captures the definition node as `@definition.<kind>` (a
   * `SymbolKind`) and its name as `@name`. A container that is not itself a symbol (Rust `impl`)
   * is captured as `@scope` with `@name`. `@receiver` (Go methods) names the container of a
   * definition that is not lexically inside it.
   */
  readonly definitions: string;
  /**
   * Imports query: one match per statement, capturing the specifier as `@source` and the names
   * brought in as `@name`; the statement is captured as `@import`, `@export`, `@require`,
   * `@include` or `@use`, which gives the import kind.
   */
  readonly imports?: string | undefined;
  /**
   * Names an import statement brings in, read from the statement node, for languages whose
   * imports query does not capture `@name` (capturing long name lists in a query can be slow).
   */
  readonly importNames?: ((statement: Node) => string[]) | undefined;
  /** Node types that wrap a definition and belong to its chunk: export statements, decorators. */
  readonly wrappers?: readonly string[] | undefined;
  /** Comment node types: comments directly above a definition belong to its chunk. */
  readonly comments: readonly string[];
  /**
   * Patterns capturing documentation that is not a comment node, as `@doc` (Python docstrings:
   * string expression statements). With the `comments` types, the text of the FTS `doc` field.
   */
  readonly docstrings?: string | undefined;
  /** Call-expression node types: a reference whose parent is one of these (as callee) is a call. */
  readonly calls: readonly string[];
  /** Node types of identifiers, for telling code occurrences from those in strings or comments. */
  readonly identifiers: readonly string[];
  /** Is this definition visible outside its file? `text` is the whole source. */
  exported(def: Node, name: string): boolean;
}

/** True when one of `node`'s ancestors (or itself) has a type in `types`, stopping at `stop`. */
export function hasAncestor(node: Node, types: readonly string[], stopAt?: readonly string[]): boolean {
  for (let n: Node | null = node; n; n = n.parent) {
    if (types.includes(n.type)) return true;
    if (stopAt?.includes(n.type)) return false;
  }
  return false;
}

/** True when `node` has a direct child (named or not) whose text is one of `words`. */
export function hasModifier(node: Node, words: readonly string[], childTypes?: readonly string[]): boolean {
  for (const child of node.children) {
    if (!child) continue;
    if (childTypes && !childTypes.includes(child.type)) continue;
    if (words.includes(child.text)) return true;
    if (childTypes) for (const g of child.children) if (g && words.includes(g.text)) return true;
  }
  return false;
}
