/** Shared shapes of the config chunker and its per-format key scanners. */

/** A key or array element: its path and the lines (0-based) from its key to the end of its value. */
export interface KeyNode {
  readonly path: string;
  /** Path of the enclosing key or array; undefined at the top level. */
  readonly parent: string | undefined;
  readonly first: number;
  readonly last: number;
  /** Elements are split targets but not names worth indexing in `defines`. */
  readonly element?: boolean | undefined;
  /** Nested keys or elements, built on demand: only values too large for one chunk need them. */
  readonly children: () => KeyNode[];
}

/**
 * Lines [start, end] (0-based, inclusive) and the nodes in them: a region of the file (a YAML
 * document, or all of it), or a part of a region owned by one node (or several sharing a line).
 */
export interface Span {
  readonly nodes: KeyNode[];
  readonly start: number;
  readonly end: number;
}

export const NO_CHILDREN = (): KeyNode[] => [];

export const joinKey = (prefix: string | undefined, key: string): string => (prefix === undefined ? key : `${prefix}.${key}`);
