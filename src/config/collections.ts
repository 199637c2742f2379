import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ContentType } from '../core/file.js';
import { CONTENT_TYPES } from '../core/file.js';
import { EngineError } from '../core/errors.js';

/**
 * Named collections (issue 22): a root plus its own rules, each indexed into its own database
 * under the scry cache dir. The registry is one small JSON file, `<cache>/collections.json`,
 * written atomically (temp file, fsync, rename); a registry that cannot be read is reported
 * (COLLECTION_REGISTRY_CORRUPT), never silently reset, so no collection is ever forgotten by accident.
 */

/** The name of the project's own root when it is searched together with collections. */
export const PROJECT_COLLECTION = 'project';

/** Default recency weight of a document collection (seed 001: 0.15); code collections get 0. */
export const DEFAULT_DOC_RECENCY = 0.15;

export interface CollectionEntry {
  /** 1–64 characters: letters, digits, `.`, `_`, `-`; not `project` (the project's own root). */
  readonly name: string;
  /** Stable id, the name of the collection's database directory: a rename keeps the index. */
  readonly id: string;
  /** Real path of the collection's root. */
  readonly root: string;
  /** Gitignore-style globs a file must match to be indexed; empty: every file. */
  readonly include: readonly string[];
  /** Gitignore-style globs excluded on top of .gitignore/.scryignore. */
  readonly exclude: readonly string[];
  /** Content types searched by default (`docs`, `code`...); empty: all. */
  readonly types: readonly ContentType[];
  /** Multiplicative recency boost weight, 0–1 (0: off). Default 0.15 unless the collection is code only. */
  readonly recency: number;
}

export interface CollectionRegistry {
  readonly version: 1;
  readonly collections: readonly CollectionEntry[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Where the registry lives. */
export const registryPath = (cacheDir: string): string => join(cacheDir, 'collections.json');

/** The database of a collection: `<cache>/collections/<id>/index.db`. */
export const collectionDbPath = (cacheDir: string, entry: Pick<CollectionEntry, 'id'>): string => join(cacheDir, 'collections', entry.id, 'index.db');

/** Throws INVALID_ARGUMENT unless `name` can name a collection. */
export function checkCollectionName(name: string): void {
  if (!NAME.test(name)) throw new EngineError('INVALID_ARGUMENT', { name: 'collection name', reason: `${JSON.stringify(name)} must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit` });
  if (name === PROJECT_COLLECTION) throw new EngineError('INVALID_ARGUMENT', { name: 'collection name', reason: `"${PROJECT_COLLECTION}" names the project's own root` });
}

const corrupt = (path: string, reason: string): EngineError => new EngineError('COLLECTION_REGISTRY_CORRUPT', { path, reason });

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function checkEntry(path: string, raw: unknown, i: number): CollectionEntry {
  const at = `collections[${i}]`;
  if (typeof raw !== 'object' || raw === null) throw corrupt(path, `${at} is not an object`);
  const e = raw as Record<string, unknown>;
  if (typeof e.name !== 'string' || !NAME.test(e.name)) throw corrupt(path, `${at}.name is missing or invalid`);
  if (typeof e.id !== 'string' || !/^[a-f0-9]{8,64}$/.test(e.id)) throw corrupt(path, `${at}.id is missing or invalid`);
  if (typeof e.root !== 'string' || !e.root.startsWith('/')) throw corrupt(path, `${at}.root must be an absolute path`);
  if (!isStringArray(e.include) || !isStringArray(e.exclude)) throw corrupt(path, `${at}.include and .exclude must be string arrays`);
  if (!isStringArray(e.types) || !e.types.every((t) => (CONTENT_TYPES as readonly string[]).includes(t))) throw corrupt(path, `${at}.types must list content types`);
  if (typeof e.recency !== 'number' || !(e.recency >= 0 && e.recency <= 1)) throw corrupt(path, `${at}.recency must be a number in 0-1`);
  return { name: e.name, id: e.id, root: e.root, include: e.include, exclude: e.exclude, types: e.types as ContentType[], recency: e.recency };
}

/** Reads the registry; a missing file is an empty registry, anything unreadable is COLLECTION_REGISTRY_CORRUPT. */
export function readRegistry(cacheDir: string): CollectionRegistry {
  const path = registryPath(cacheDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, collections: [] };
    throw new EngineError('IO_ERROR', { path, reason: (err as Error).message });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw corrupt(path, `not JSON (${(err as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || (data as { version?: unknown }).version !== 1) throw corrupt(path, 'expected {"version": 1, "collections": [...]}');
  const list = (data as { collections?: unknown }).collections;
  if (!Array.isArray(list)) throw corrupt(path, 'collections must be an array');
  const collections = list.map((raw, i) => checkEntry(path, raw, i));
  const names = new Set<string>();
  for (const c of collections) {
    if (names.has(c.name)) throw corrupt(path, `the name ${c.name} appears twice`);
    names.add(c.name);
  }
  return { version: 1, collections };
}

/** Writes the registry atomically: a crash leaves the old file or the new one, never half of one. */
export function writeRegistry(cacheDir: string, registry: CollectionRegistry): void {
  const path = registryPath(cacheDir);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(registry, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    unlinkSync(tmp);
    throw new EngineError('IO_ERROR', { path, reason: (err as Error).message });
  }
}

/** The entry named `name`, or COLLECTION_NOT_FOUND. */
export function findCollection(registry: CollectionRegistry, name: string): CollectionEntry {
  const entry = registry.collections.find((c) => c.name === name);
  if (!entry) throw new EngineError('COLLECTION_NOT_FOUND', { name });
  return entry;
}

/** A fresh collection id. */
export const newCollectionId = (): string => randomBytes(8).toString('hex');

/**
 * The ignore patterns that give a collection its include/exclude rules on top of the walk's
 * own: excludes as they are; includes as "ignore every file, then re-include directories and
 * the included globs" (gitignore negation), so the walk itself needs no new option.
 */
export function collectionIgnore(entry: Pick<CollectionEntry, 'include' | 'exclude'>): string[] {
  if (entry.include.length === 0) return [...entry.exclude];
  return ['*', '!*/', ...entry.include.map((g) => `!${g}`), ...entry.exclude];
}
