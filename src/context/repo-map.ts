import { isAbsolute, relative, sep } from 'node:path';
import { EngineError } from '../core/errors.js';
import type { SymbolKind } from '../core/symbol.js';
import { STOP_WORDS } from '../search/stop-words.js';
import type { IndexStore } from '../store/index-store.js';
import { fitMap, MAX_SYMBOLS_PER_FILE, type MapEntry } from './map-render.js';
import { pageRank } from './page-rank.js';
import { loadRepoGraph, type RepoGraph } from './repo-graph.js';
import { loadTokenCounter } from './tokens.js';

/**
 * The repo map (aider-style): the code files of the index ranked by personalised PageRank over
 * the import graph, rendered as a directory tree of files with their top-level exported
 * signatures, and fitted to a token budget. Built from stored structure only (no reparse); the
 * graph is cached per index state and ranks per personalisation.
 *
 * Roles, from the import graph (imports from test files not counted): `test` for test files;
 * `main` for an entry point (imports repository files, imported by none); `utility` for a leaf
 * others import (imported, imports no repository file); `module` for the rest (in between, or
 * not connected).
 */
export type RepoMapRole = MapEntry['role'];

export interface RepoMapSymbol {
  readonly name: string;
  readonly kind: SymbolKind;
  /** The declaration head as stored (whitespace collapsed). */
  readonly signature: string;
}

export interface RepoMapFile {
  readonly path: string;
  /** PageRank (all files' ranks sum to 1), 6 significant digits. */
  readonly rank: number;
  readonly role: RepoMapRole;
  /** The top-level exported symbols the map shows (at most 10), in source order. */
  readonly symbols: readonly RepoMapSymbol[];
}

export interface RepoMap {
  /** The rendered map, at most `budget` tokens (o200k). */
  readonly text: string;
  /** The files in the text, highest rank first. */
  readonly files: readonly RepoMapFile[];
  /** Tokens of `text` (o200k). */
  readonly tokens: number;
  readonly budget: number;
  /** Code files ranked. */
  readonly totalFiles: number;
  readonly includedFiles: number;
  readonly tookMs: number;
}

/** What a map is asked for (the engine's `RepoMapOptions`). */
export interface RepoMapRequest {
  readonly tokens?: number | undefined;
  readonly focus?: readonly string[] | undefined;
  readonly query?: string | undefined;
}

export const DEFAULT_MAP_TOKENS = 1024;
export const MIN_MAP_TOKENS = 64;
export const MAX_MAP_TOKENS = 100_000;
const MAX_FOCUS = 100;
const MAX_QUERY_CHARS = 4096;
const MAX_QUERY_WORDS = 20;
/** Teleport weight of a test file relative to another code file: tests import much, matter less. */
const TEST_WEIGHT = 0.2;
const RANK_CACHE_SIZE = 8;

/** The graph of one index state and ranks per personalisation; one per engine. */
export interface RepoMapCache {
  store: IndexStore | undefined;
  version: string;
  graph: RepoGraph | undefined;
  readonly ranks: Map<string, Float64Array>;
}

export function createRepoMapCache(): RepoMapCache {
  return { store: undefined, version: '', graph: undefined, ranks: new Map() };
}

export async function buildRepoMap(store: IndexStore, root: string, request: RepoMapRequest, cache: RepoMapCache): Promise<RepoMap> {
  const started = performance.now();
  const budget = request.tokens ?? DEFAULT_MAP_TOKENS;
  if (!Number.isInteger(budget) || budget < MIN_MAP_TOKENS || budget > MAX_MAP_TOKENS) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'tokens', reason: `must be an integer from ${MIN_MAP_TOKENS} to ${MAX_MAP_TOKENS}` });
  }
  const query = request.query ?? '';
  if (typeof query !== 'string' || query.length > MAX_QUERY_CHARS) throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: `must be a string of at most ${MAX_QUERY_CHARS} characters` });
  const graph = graphFor(store, cache);
  const focus = focusNodes(graph, root, request.focus ?? []);
  const matched = queryNodes(store, graph, query);
  const ranks = ranksFor(graph, focus, matched, cache);

  const order = graph.paths.map((_, i) => i).sort((a, b) => ranks[b]! - ranks[a]! || (graph.paths[a]! < graph.paths[b]! ? -1 : 1));
  const entries: MapEntry[] = order.map((i) => ({ path: graph.paths[i]!, role: roleOf(graph, i), symbols: graph.symbols[i]! }));
  const fitted = fitMap(entries, budget, await loadTokenCounter());
  const files = order.slice(0, fitted.included).map((i, k) => ({
    path: entries[k]!.path,
    rank: Number(ranks[i]!.toPrecision(6)),
    role: entries[k]!.role,
    symbols: entries[k]!.symbols.slice(0, MAX_SYMBOLS_PER_FILE).map((s) => ({ name: s.name, kind: s.kind, signature: s.signature.replace(/\s+/g, ' ').trim() })),
  }));
  return {
    text: fitted.text,
    files,
    tokens: fitted.tokens,
    budget,
    totalFiles: graph.paths.length,
    includedFiles: fitted.included,
    tookMs: Math.round((performance.now() - started) * 100) / 100,
  };
}

export function roleOf(graph: RepoGraph, i: number): RepoMapRole {
  if (graph.isTest[i]) return 'test';
  const importers = graph.importers[i]!;
  const imported = graph.imported[i]!;
  if (importers === 0 && imported > 0) return 'main';
  if (importers > 0 && imported === 0) return 'utility';
  return 'module';
}

/**
 * The cached graph, reloaded when the index changed: another pass completed (every pass stamps
 * `last_pass_at`), the file, symbol or import counts moved, or another store is open. Cheap
 * (`count(*)` on SQLite's b-trees): about 0.3 ms for 270K symbols.
 */
function graphFor(store: IndexStore, cache: RepoMapCache): RepoGraph {
  const version = store.read(() => {
    const { symbols, imports } = store.structure.counts();
    return `${store.meta.get('last_pass_at') ?? ''}|${store.meta.get('file_count') ?? ''}|${symbols}|${imports}`;
  });
  if (cache.graph && cache.store === store && cache.version === version) return cache.graph;
  cache.graph = loadRepoGraph(store);
  cache.store = store;
  cache.version = version;
  cache.ranks.clear();
  return cache.graph;
}

/** Nodes of the focus paths: a file, or every code file under a directory. Absolute paths must be inside the root. */
function focusNodes(graph: RepoGraph, root: string, focus: readonly string[]): number[] {
  if (!Array.isArray(focus) || focus.length > MAX_FOCUS) throw new EngineError('INVALID_ARGUMENT', { name: 'focus', reason: `must be a list of at most ${MAX_FOCUS} paths` });
  const nodes = new Set<number>();
  for (const raw of focus) {
    if (typeof raw !== 'string' || raw.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'focus', reason: 'each path must be a non-empty string' });
    const rel = (isAbsolute(raw) ? relative(root, raw).split(sep).join('/') : raw).replace(/^\.\//, '').replace(/\/+$/, '');
    if (rel.startsWith('..') || isAbsolute(rel)) throw new EngineError('PATH_OUTSIDE_ROOT', { path: raw });
    const file = graph.nodeOf.get(rel);
    const under = file === undefined ? graph.paths.flatMap((p, i) => (rel === '' || rel === '.' || p.startsWith(`${rel}/`) ? [i] : [])) : [file];
    if (under.length === 0) throw new EngineError('INVALID_ARGUMENT', { name: 'focus', reason: `"${raw}" is not an indexed code file or a directory holding one` });
    for (const i of under) nodes.add(i);
  }
  return [...nodes].sort((a, b) => a - b);
}

/**
 * Nodes matching the query: files defining an exported symbol named by one of its identifiers
 * (case-insensitively), and files whose name is made of its words (`repo map` or `repoMap` →
 * `repo-map.ts`, `PageRank` → `page-rank.ts`).
 */
function queryNodes(store: IndexStore, graph: RepoGraph, query: string): number[] {
  const words = [...new Set((query.match(/[A-Za-z_$][\w$]*/g) ?? []).map((w) => w.toLowerCase()))]
    .filter((w) => w.length >= 3 && !STOP_WORDS.has(w))
    .slice(0, MAX_QUERY_WORDS);
  const nodes = new Set<number>();
  if (words.length === 0) return [];
  const wordSet = new Set(words);
  graph.stemWords.forEach((parts, i) => {
    if (parts.length > 0 && (wordSet.has(parts.join('')) || parts.every((p) => wordSet.has(p)))) nodes.add(i);
  });
  for (const word of words) {
    for (const s of store.read(() => store.structure.byName(word, undefined, 500))) {
      const i = s.exported ? graph.nodeOf.get(s.path) : undefined;
      if (i !== undefined) nodes.add(i);
    }
  }
  return [...nodes].sort((a, b) => a - b);
}

/**
 * Ranks for a personalisation, cached. Teleport weights: 1 per code file (TEST_WEIGHT for a
 * test); focus files share as much again (half the mass when alone), query matches half as much.
 */
function ranksFor(graph: RepoGraph, focus: readonly number[], matched: readonly number[], cache: RepoMapCache): Float64Array {
  const key = `${focus.join(',')}|${matched.join(',')}`;
  const hit = cache.ranks.get(key);
  if (hit) {
    cache.ranks.delete(key);
    cache.ranks.set(key, hit); // most recently used last
    return hit;
  }
  const weights = graph.isTest.map((t) => (t ? TEST_WEIGHT : 1));
  const base = weights.reduce((a, b) => a + b, 0);
  for (const i of focus) weights[i]! += base / focus.length;
  for (const i of matched) weights[i]! += base / 2 / matched.length;
  const ranks = pageRank(graph.paths.length, graph.edges, { personalization: weights });
  cache.ranks.set(key, ranks);
  if (cache.ranks.size > RANK_CACHE_SIZE) cache.ranks.delete(cache.ranks.keys().next().value!);
  return ranks;
}
