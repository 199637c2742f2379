/**
 * Vector search of the team index without pgvector: each repository's chunk vectors (int8 blobs
 * of src/embed/quantize.ts, in `team_vectors`) are loaded once per head revision and model into
 * the existing flat scan (src/embed/flat-scan.ts, WebAssembly SIMD), scanned in this process, and
 * the repositories' hits merged by cosine.
 */
import { readBlobHeader } from '../embed/quantize.js';
import { FlatVectorIndex } from '../embed/flat-scan.js';
import { EngineError } from '../core/errors.js';
import type { PgDb, Sql } from './pg-db.js';
import { heads } from './pg-search.js';
import type { RevisionStats } from './pg-candidates.js';

export interface TeamVectorHit {
  readonly repo: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly chunkHash: string;
  readonly score: number;
}

interface Loaded {
  readonly index: FlatVectorIndex | undefined;
  readonly rows: ReadonlyMap<number, Omit<TeamVectorHit, 'score' | 'repo'>>;
}

/**
 * Loaded scans by (revision, model): a revision never changes, so an entry never goes stale; the
 * oldest is dropped past `capacity` (a documented cache owned by one store instance).
 */
export class TeamVectorCache {
  private readonly entries = new Map<string, Loaded>();

  constructor(private readonly capacity = 64) {}

  async get(sql: Sql, rev: RevisionStats, model: string): Promise<Loaded> {
    const key = `${rev.revision}\0${model}`;
    const hit = this.entries.get(key);
    if (hit) return hit;
    const rows = (
      await sql(
        `SELECT c.id, f.path, c.start_line, c.end_line, c.hash, v.vector FROM team_chunks c JOIN team_files f ON f.id = c.file_id
         JOIN team_vectors v ON v.repo_id = c.repo_id AND v.model = $2 AND v.chunk_hash = c.hash WHERE c.revision_id = $1 ORDER BY c.id`,
        [rev.revision, model],
      )
    ).rows;
    let index: FlatVectorIndex | undefined;
    const meta = new Map<number, Omit<TeamVectorHit, 'score' | 'repo'>>();
    for (const r of rows) {
      const blob = r['vector'] as Buffer;
      index ??= new FlatVectorIndex({ dimensions: readBlobHeader(blob).dimensions });
      const id = Number(r['id']);
      index.add(id, blob);
      meta.set(id, { path: String(r['path']), startLine: Number(r['start_line']), endLine: Number(r['end_line']), chunkHash: String(r['hash']) });
    }
    const loaded = { index, rows: meta };
    this.entries.set(key, loaded);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return loaded;
  }
}

export async function searchTeamVectors(db: PgDb, cache: TeamVectorCache, query: Float32Array, model: string, options: { repos?: readonly string[]; k?: number }): Promise<TeamVectorHit[]> {
  const k = options.k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > 1000) throw new EngineError('INVALID_ARGUMENT', { name: 'k', reason: 'must be an integer from 1 to 1000' });
  return db.read(async (sql) => {
    const hits: TeamVectorHit[] = [];
    for (const rev of await heads(sql, options.repos)) {
      const loaded = await cache.get(sql, rev, model);
      if (!loaded.index || loaded.index.dimensions !== query.length) continue;
      for (const h of loaded.index.search(query, k)) hits.push({ repo: rev.name, ...loaded.rows.get(h.id)!, score: h.score });
    }
    return hits.sort((a, b) => b.score - a.score || a.repo.localeCompare(b.repo)).slice(0, k);
  });
}
