import type { PgDb } from './pg-db.js';
import type { TeamTextOptions, TeamTextResult } from './team-store.js';

export async function searchTeamText(_db: PgDb, _query: string, _options: TeamTextOptions): Promise<TeamTextResult> {
  throw new Error('not yet');
}
