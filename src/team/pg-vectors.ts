import type { PgDb } from './pg-db.js';

export async function searchTeamVectors(_db: PgDb, _q: Float32Array, _model: string, _o: { repos?: readonly string[]; k?: number }): Promise<Array<{ repo: string; path: string; startLine: number; endLine: number; chunkHash: string; score: number }>> {
  throw new Error('not yet');
}
