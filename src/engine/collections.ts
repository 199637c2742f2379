import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { EngineError } from '../core/errors.js';
import type { ContentType } from '../core/file.js';
import { CONTENT_TYPES } from '../core/file.js';
import type { Clock, Logger } from '../core/logger.js';
import {
  checkCollectionName, collectionDbPath, collectionIgnore, DEFAULT_DOC_RECENCY, findCollection, newCollectionId,
  PROJECT_COLLECTION, readRegistry, writeRegistry, type CollectionEntry,
} from '../config/collections.js';
import { resolveCacheDir, resolveRoot } from '../config/resolve.js';
import type { ConfigInput } from '../config/schema.js';
import { mergeCollectionHits, type CollectionResult } from '../search/collection-merge.js';
import type { SearchMeta } from '../search/search-result.js';
import type { Freshness } from '../freshness/freshness.js';
import { createEngine } from './engine.js';
import type { Engine, SearchOptions } from './engine-api.js';
import { checkSearchRequest } from './request-checks.js';

/** Where the registry is: SCRY_CACHE_DIR or the user cache dir, read from `env` (default process.env). */
export interface CollectionsLocation {
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** A registered collection and its database. */
export interface CollectionInfo extends CollectionEntry {
  readonly dbPath: string;
}

export interface AddCollectionOptions extends CollectionsLocation {
  /** Globs a file must match to be indexed (`**\/*.md`); none: every file the walk takes. */
  readonly include?: readonly string[] | undefined;
  /** Globs to leave out, on top of .gitignore/.scryignore. */
  readonly exclude?: readonly string[] | undefined;
  /** Content types searched by default; none: all. */
  readonly types?: readonly ContentType[] | undefined;
  /** Recency boost weight 0–1. Default 0.15 (seed 001), or 0 when `types` is only `code`. */
  readonly recency?: number | undefined;
}

const info = (cacheDir: string, e: CollectionEntry): CollectionInfo => ({ ...e, dbPath: collectionDbPath(cacheDir, e) });

/** The registered collections, by name. */
export function listCollections(options: CollectionsLocation = {}): CollectionInfo[] {
  const cacheDir = resolveCacheDir(options.env);
  return readRegistry(cacheDir).collections.map((e) => info(cacheDir, e)).sort((a, b) => a.name.localeCompare(b.name));
}

/** Registers a collection (indexed on first use, or with `scry index --collection NAME`). */
export function addCollection(name: string, dir: string, options: AddCollectionOptions = {}): CollectionInfo {
  checkCollectionName(name);
  const types = [...(options.types ?? [])];
  for (const t of types) if (!(CONTENT_TYPES as readonly string[]).includes(t)) throw new EngineError('INVALID_ARGUMENT', { name: 'types', reason: `${t} is not one of ${CONTENT_TYPES.join(', ')}` });
  const recency = options.recency ?? (types.length > 0 && types.every((t) => t === 'code') ? 0 : DEFAULT_DOC_RECENCY);
  if (!(recency >= 0 && recency <= 1)) throw new EngineError('INVALID_ARGUMENT', { name: 'recency', reason: 'must be a number in 0-1' });
  const root = resolveRoot(dir);
  const cacheDir = resolveCacheDir(options.env);
  const registry = readRegistry(cacheDir);
  const existing = registry.collections.find((c) => c.name === name);
  if (existing) throw new EngineError('COLLECTION_EXISTS', { name, root: existing.root });
  const entry: CollectionEntry = { name, id: newCollectionId(), root, include: [...(options.include ?? [])], exclude: [...(options.exclude ?? [])], types, recency };
  writeRegistry(cacheDir, { version: 1, collections: [...registry.collections, entry] });
  return info(cacheDir, entry);
}

/** Unregisters a collection and deletes its index (never its files). */
export function removeCollection(name: string, options: CollectionsLocation = {}): CollectionInfo {
  const cacheDir = resolveCacheDir(options.env);
  const registry = readRegistry(cacheDir);
  const entry = findCollection(registry, name);
  writeRegistry(cacheDir, { version: 1, collections: registry.collections.filter((c) => c !== entry) });
  const removed = info(cacheDir, entry);
  rmSync(dirname(removed.dbPath), { recursive: true, force: true });
  return removed;
}

/** Renames a collection; its index (kept under its id) is untouched. */
export function renameCollection(from: string, to: string, options: CollectionsLocation = {}): CollectionInfo {
  checkCollectionName(to);
  const cacheDir = resolveCacheDir(options.env);
  const registry = readRegistry(cacheDir);
  const entry = findCollection(registry, from);
  const clash = registry.collections.find((c) => c.name === to);
  if (clash && clash !== entry) throw new EngineError('COLLECTION_EXISTS', { name: to, root: clash.root });
  const renamed = { ...entry, name: to };
  writeRegistry(cacheDir, { version: 1, collections: registry.collections.map((c) => (c === entry ? renamed : c)) });
  return info(cacheDir, renamed);
}

export interface OpenCollectionOptions extends CollectionsLocation {
  readonly config?: ConfigInput | undefined;
  readonly logger?: Logger | undefined;
  readonly clock?: Clock | undefined;
}

/** The engine of one collection: its root, its database, its include/exclude rules and recency weight. */
export async function openCollection(name: string, options: OpenCollectionOptions = {}): Promise<Engine> {
  const cacheDir = resolveCacheDir(options.env);
  const entry = findCollection(readRegistry(cacheDir), name);
  const ignore = [...(options.config?.ignore ?? []), ...collectionIgnore(entry)];
  // a collection without code is not penalised for being docs: its docs are what it is for
  const nonCode = entry.types.length > 0 && !entry.types.includes('code') ? { nonCode: 1 } : {};
  // a collection is documents first: HTML pages are read as text by headings, not as markup
  // and PDFs, which the built-in denylist keeps out of code projects, are what a collection is for
  const denylist = { add: options.config?.denylist?.add ?? [], remove: [...(options.config?.denylist?.remove ?? []), '*.pdf'] };
  const config: ConfigInput = { ...options.config, ignore, denylist, documents: { html: 'text', ...options.config?.documents }, search: { ...options.config?.search, ranking: { recency: entry.recency, ...nonCode, ...options.config?.search?.ranking } } };
  return createEngine({ root: entry.root, db: collectionDbPath(cacheDir, entry), config, logger: options.logger, clock: options.clock, env: options.env });
}

/** One searchable member of a collection set: its name, its engine, its default content types. */
export interface CollectionMember {
  readonly name: string;
  readonly engine: Engine;
  readonly types?: readonly ContentType[] | undefined;
}

/** The default content types of each registered collection, for `searchCollections` members. */
export function collectionTypes(name: string, options: CollectionsLocation = {}): readonly ContentType[] {
  if (name === PROJECT_COLLECTION) return [];
  return findCollection(readRegistry(resolveCacheDir(options.env)), name).types;
}

/** What one collection contributed to a merged search. */
export interface CollectionSearchMeta {
  readonly name: string;
  readonly root: string;
  readonly mode: SearchMeta['mode'];
  readonly indexedFiles: number;
  readonly results: number;
  readonly tookMs: number;
  /** How fresh this collection's index is (`fresh`, `pending`, `indexing`, `unwatched`): each collection has its own. */
  readonly freshness: Freshness['state'];
}

export interface CollectionSearchResponse {
  readonly query: string;
  readonly results: readonly CollectionResult[];
  readonly meta: { readonly merge: 'score' | 'rrf'; readonly collections: readonly CollectionSearchMeta[] };
}

/**
 * One query over several collections: each engine searches its own database (with the
 * collection's default content types unless the request names some), then the lists are merged
 * (collection-merge.ts) and every result carries its collection's name.
 */
export async function searchCollections(members: readonly CollectionMember[], query: string, options: SearchOptions = {}): Promise<CollectionSearchResponse> {
  checkSearchRequest(query, options);
  if (members.length === 0) throw new EngineError('INVALID_ARGUMENT', { name: 'collections', reason: 'name at least one collection' });
  const limit = options.limit ?? members[0]!.engine.config.search.limit;
  const answers = await Promise.all(
    members.map(async (m) => {
      const type = options.type ?? (m.types && m.types.length > 0 ? [...m.types] : undefined);
      return { m, response: await m.engine.search(query, { ...options, limit, type }) };
    }),
  );
  const merged = mergeCollectionHits(answers.map(({ m, response }) => ({ collection: m.name, mode: response.meta.mode, results: response.results })), limit, options.explain === true);
  const collections = answers.map(({ m, response }) => ({
    name: m.name, root: response.meta.root, mode: response.meta.mode, indexedFiles: response.meta.indexedFiles, results: response.results.length, tookMs: response.meta.tookMs, freshness: m.engine.freshness().state,
  }));
  return { query, results: merged.results, meta: { merge: merged.merge, collections } };
}
