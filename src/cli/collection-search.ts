import { collectionTypes, listCollections, openCollection, PROJECT_COLLECTION, searchCollections, type CollectionMember, type CollectionSearchResponse, type SearchOptions } from '../index.js';
import { ensureIndexed } from './ensure-index.js';
import { formatResults } from './format.js';
import type { CliIO } from './io.js';
import { openEngine } from './open-engine.js';

/** Which collections a command works on: named ones (`project` is the current project), or all of them. */
export interface CollectionTarget {
  readonly names?: readonly string[] | undefined;
  readonly all?: boolean | undefined;
  /** The project's root and database, as the command's DIR/--root and --db. */
  readonly dir?: string | undefined;
  readonly db?: string | undefined;
}

/** The names a target means: `--all` is the project then every registered collection. */
export function collectionNames(t: CollectionTarget): string[] {
  const names = t.all ? [PROJECT_COLLECTION, ...listCollections().map((c) => c.name)] : [...(t.names ?? [])];
  return [...new Set(names)];
}

/** Opens every collection of a target (the project through openEngine); on a failure closes those opened. */
export async function openMembers(io: CliIO, t: CollectionTarget): Promise<CollectionMember[]> {
  const members: CollectionMember[] = [];
  try {
    for (const name of collectionNames(t)) {
      const engine = name === PROJECT_COLLECTION ? await openEngine(io, { dir: t.dir, db: t.db, orCwd: true }) : await openCollection(name);
      members.push({ name, engine, types: collectionTypes(name) });
    }
    return members;
  } catch (err) {
    for (const m of members) m.engine.close();
    throw err;
  }
}

/** `scry search --collection NAME... | --all`: each collection indexed if it has no index yet, then one merged answer. */
export async function searchCollectionsCommand(io: CliIO, query: string, t: CollectionTarget, options: SearchOptions, json: boolean | undefined, color: boolean): Promise<number> {
  const members = await openMembers(io, t);
  try {
    for (const m of members) await ensureIndexed(io, m.engine, json);
    const response = await searchCollections(members, query, options);
    io.out(json ? `${JSON.stringify(response, null, 2)}\n` : formatCollectionSearch(response, color));
    return 0;
  } finally {
    for (const m of members) m.engine.close();
  }
}

export function formatCollectionSearch(response: CollectionSearchResponse, color: boolean): string {
  const lines = formatResults(response.results, color);
  const n = response.results.length;
  const per = response.meta.collections.map((c) => `${c.name} ${c.results}/${c.indexedFiles} files (${c.mode}${c.freshness === 'fresh' || c.freshness === 'unwatched' ? '' : `, ${c.freshness}`})`).join(', ');
  lines.push(`${n === 0 ? 'no results' : `${n} result${n === 1 ? '' : 's'}`} · merged by ${response.meta.merge} over ${per}`);
  return `${lines.join('\n')}\n`;
}
