import { posix } from 'node:path';
import type { SymbolKind } from '../core/symbol.js';
import { isTestPath } from '../search/rank.js';
import { resolveImport, stemOf } from '../search/relations.js';
import type { IndexStore } from '../store/index-store.js';
import type { WeightedEdge } from './page-rank.js';

/**
 * The import graph of an index's code files, read from stored structure in two queries (no
 * reparse): node i is `paths[i]`; an edge runs from an importer to the repository file its import
 * resolves to (search/relations.ts resolves; resolutions are memoised per specifier), weighted by
 * the number of import statements between the two. Docs, config and text files are not nodes.
 */
export interface RepoGraph {
  /** Code files in path order. */
  readonly paths: readonly string[];
  readonly nodeOf: ReadonlyMap<string, number>;
  /** Merged edges, sorted by (from, to). */
  readonly edges: readonly WeightedEdge[];
  /** Distinct non-test files importing each node (tests import everything: they do not make a file a dependency). */
  readonly importers: Int32Array;
  /** Distinct files each node imports. */
  readonly imported: Int32Array;
  /** Top-level exported definitions per node, in source order. */
  readonly symbols: ReadonlyArray<readonly GraphSymbol[]>;
  readonly isTest: readonly boolean[];
  /** Lower-cased words of each file's stem (`repoMap.ts`, `repo-map.ts` → `repo`, `map`), for matching query words. */
  readonly stemWords: ReadonlyArray<readonly string[]>;
}

export interface GraphSymbol {
  readonly name: string;
  readonly kind: SymbolKind;
  readonly signature: string;
}

/** Languages whose resolution depends only on the specifier, not on the importing directory. */
const DIR_FREE = new Set(['go', 'rust', 'java', 'csharp']);
/** Languages where only a `.`-relative specifier depends on the importing directory. */
const DOT_RELATIVE = new Set(['python', 'typescript', 'tsx', 'javascript', 'vue', 'svelte']);

const dirFree = (language: string, source: string): boolean => DIR_FREE.has(language) || (DOT_RELATIVE.has(language) && !/^[./]/.test(source));

export function loadRepoGraph(store: IndexStore): RepoGraph {
  const { listing, imports, exports } = store.read(() => ({
    listing: store.files.listing(),
    imports: store.structure.codeImports(),
    exports: store.structure.codeExports(),
  }));
  const allPaths = new Set(listing.map((f) => f.path));
  const paths = listing.filter((f) => f.contentType === 'code').map((f) => f.path);
  const nodeOf = new Map(paths.map((p, i) => [p, i]));
  const n = paths.length;

  const memo = new Map<string, number | undefined>();
  const weights = new Map<number, number>(); // from * n + to → statements
  for (const [path, language, source] of imports) {
    const from = nodeOf.get(path);
    if (from === undefined) continue;
    const key = `${language}\0${dirFree(language, source) ? '' : posix.dirname(path)}\0${source}`;
    let to = memo.get(key);
    if (!memo.has(key)) {
      const target = resolveImport(source, path, language, allPaths);
      to = target === undefined ? undefined : nodeOf.get(target);
      memo.set(key, to);
    }
    if (to === undefined || to === from) continue;
    const edgeKey = from * n + to;
    weights.set(edgeKey, (weights.get(edgeKey) ?? 0) + 1);
  }
  const edges = [...weights.keys()].sort((a, b) => a - b).map((k) => ({ from: Math.floor(k / n), to: k % n, weight: weights.get(k)! }));
  const isTest = paths.map(isTestPath);
  const importers = new Int32Array(n);
  const imported = new Int32Array(n);
  for (const e of edges) {
    if (!isTest[e.from]) importers[e.to]!++;
    imported[e.from]!++;
  }

  // one line per name: overloads and declaration merging (`function f` + `namespace f`) keep the first
  const symbols: GraphSymbol[][] = paths.map(() => []);
  let last: { node: number; names: Set<string> } | undefined;
  for (const [path, name, kind, signature] of exports) {
    const node = nodeOf.get(path);
    if (node === undefined) continue;
    if (last?.node !== node) last = { node, names: new Set() };
    if (last.names.has(name)) continue;
    last.names.add(name);
    symbols[node]!.push({ name, kind, signature });
  }
  return { paths, nodeOf, edges, importers, imported, symbols, isTest, stemWords: paths.map(stemWordsOf) };
}

/** `src/repoMap.test.ts` → `repo`, `map`: the name up to its first dot, split at `-`, `_` and camelCase humps. */
export function stemWordsOf(path: string): string[] {
  return stemOf(path)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}
