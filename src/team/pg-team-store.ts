/**
 * The PostgreSQL implementation of `TeamStore` (issue 23). Writes: pg-push.ts, pg-revision.ts;
 * lexical search: pg-search.ts; search_text: pg-text.ts; vectors: pg-vectors.ts; read_file and
 * list_files: pg-files.ts; search_symbols: pg-symbols.ts.
 */
import { PgDb, type PgDbOptions } from './pg-db.js';
import { migrateTeamDb } from './pg-migrate.js';
import { beginRevision, ensureRepo, missing, putChunks, putContents, putVectors, REPO_COLUMNS, repoRow } from './pg-push.js';
import { abortRevision, analyzeIfStale, commitRevision, gc, putFiles } from './pg-revision.js';
import { listTeamFiles, readTeamFile } from './pg-files.js';
import { searchTeam } from './pg-search.js';
import { searchTeamSymbols } from './pg-symbols.js';
import { searchTeamText } from './pg-text.js';
import { searchTeamVectors, TeamVectorCache } from './pg-vectors.js';
import { QueryTokenizer } from './query-tokenizer.js';
import type { ReadFileOptions } from '../workspace/files.js';
import type { ChunkPayload, ContentPayload, OpenRevision, PushManifest, TeamListFilesOptions, TeamSearchOptions, TeamStore, TeamSymbolOptions, TeamTextOptions, VectorPayload } from './team-store.js';

export type TeamStoreOptions = PgDbOptions;

/** Open revisions older than this are pushes that died: `gc()` removes them. Default one hour. */
export const STALE_REVISION_MS = 60 * 60 * 1000;

class PgTeamStore implements TeamStore {
  private tokenizer: QueryTokenizer | undefined;
  private readonly vectors = new TeamVectorCache();

  constructor(private readonly db: PgDb) {}

  private words(): QueryTokenizer {
    return (this.tokenizer ??= new QueryTokenizer());
  }

  migrate = () => migrateTeamDb(this.db);
  ensureRepo = (name: string) => ensureRepo(this.db, name);
  async listRepos() {
    return (await this.db.query(`SELECT ${REPO_COLUMNS} FROM team_repos p LEFT JOIN team_revisions r ON r.id = p.head ORDER BY p.name`)).rows.map(repoRow);
  }
  missingChunks = (repo: string, hashes: readonly string[]) => missing(this.db, 'team_docs', repo, hashes);
  missingContents = (repo: string, hashes: readonly string[]) => missing(this.db, 'team_contents', repo, hashes);
  beginRevision = (repo: string) => beginRevision(this.db, repo);
  putChunks = (revision: OpenRevision, chunks: readonly ChunkPayload[]) => putChunks(this.db, revision, chunks);
  putContents = (revision: OpenRevision, contents: readonly ContentPayload[]) => putContents(this.db, revision, contents);
  putVectors = (revision: OpenRevision, vectors: VectorPayload) => putVectors(this.db, revision, vectors);
  putFiles = (revision: OpenRevision, files: PushManifest['files']) => putFiles(this.db, revision, files);
  async commitRevision(revision: OpenRevision, manifest: PushManifest) {
    const committed = await commitRevision(this.db, revision, manifest);
    await analyzeIfStale(this.db);
    return committed;
  }
  abortRevision = (revision: OpenRevision) => abortRevision(this.db, revision);
  gc = (options: { olderThanMs?: number } = {}) => gc(this.db, options.olderThanMs ?? STALE_REVISION_MS);
  search = (query: string, options: TeamSearchOptions = {}) => searchTeam(this.db, this.words(), query, options);
  searchText = (query: string, options: TeamTextOptions = {}) => searchTeamText(this.db, query, options);
  searchVectors = (query: Float32Array, model: string, options: { repos?: readonly string[]; k?: number } = {}) => searchTeamVectors(this.db, this.vectors, query, model, options);
  readFile = (repo: string, path: string, options: ReadFileOptions = {}) => readTeamFile(this.db, repo, path, options);
  listFiles = (repo: string, options: TeamListFilesOptions = {}) => listTeamFiles(this.db, repo, options);
  searchSymbols = (name: string, options: TeamSymbolOptions = {}) => searchTeamSymbols(this.db, name, options);

  async sizeOnDisk(): Promise<number> {
    const row = (await this.db.query("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS n FROM pg_class c WHERE c.relkind = 'r' AND c.relname LIKE 'team\\_%'")).rows[0];
    return Number(row?.['n'] ?? 0);
  }

  async close(): Promise<void> {
    this.tokenizer?.close();
    await this.db.close();
  }
}

/** A team store over the PostgreSQL database at `url` (`postgres://…`). Call `migrate()` before use. */
export function openPgTeamStore(url: string, options: TeamStoreOptions = {}): TeamStore {
  return new PgTeamStore(new PgDb(url, options));
}
