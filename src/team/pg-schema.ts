/**
 * The team index's PostgreSQL schema, as numbered migrations (like src/store/migrations for
 * SQLite); `scry_team_meta.schema_version` records the last one applied, and a database with a
 * higher version is refused (TEAM_DB_TOO_NEW). Every row carries its repository id (`repo_id`),
 * the column a sharded deployment (Citus) would distribute on. See docs/DESIGN.md
 * "Team index (PostgreSQL)".
 */
export interface PgMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * 1: repositories, revisions (a committed head per repository), content-addressed file bodies
 *    (pg_trgm GIN for search_text) and chunk postings (FTS5 tokens: per chunk, term and column the
 *    positions), per revision files, chunks and the chunk-posting multiplicities BM25 counts, and
 *    chunk vectors (int8 blobs, scanned in process).
 */
const migration001: PgMigration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE team_repos (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  head        bigint,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE team_revisions (
  id           bigserial PRIMARY KEY,
  repo_id      bigint NOT NULL REFERENCES team_repos(id) ON DELETE CASCADE,
  state        text NOT NULL CHECK (state IN ('open', 'committed', 'retired')),
  base         bigint,
  created_at   timestamptz NOT NULL DEFAULT now(),
  committed_at timestamptz,
  files        integer NOT NULL DEFAULT 0,
  chunks       integer NOT NULL DEFAULT 0,
  total_length bigint NOT NULL DEFAULT 0
);
CREATE INDEX team_revisions_repo ON team_revisions(repo_id, state);

CREATE TABLE team_contents (
  repo_id  bigint NOT NULL REFERENCES team_repos(id) ON DELETE CASCADE,
  hash     text NOT NULL,
  body     text NOT NULL,
  nuls     integer[],
  PRIMARY KEY (repo_id, hash)
);
CREATE INDEX team_contents_trgm ON team_contents USING gin (body gin_trgm_ops);

CREATE TABLE team_docs (
  id       bigserial PRIMARY KEY,
  repo_id  bigint NOT NULL REFERENCES team_repos(id) ON DELETE CASCADE,
  hash     text NOT NULL,
  length   integer NOT NULL,
  UNIQUE (repo_id, hash)
);

CREATE TABLE team_postings (
  repo_id    bigint NOT NULL,
  term       text NOT NULL,
  doc_id     bigint NOT NULL REFERENCES team_docs(id) ON DELETE CASCADE,
  col        smallint NOT NULL,
  positions  integer[] NOT NULL,
  PRIMARY KEY (repo_id, term, doc_id, col)
);
CREATE INDEX team_postings_doc ON team_postings(doc_id);

CREATE TABLE team_files (
  id            bigserial PRIMARY KEY,
  repo_id       bigint NOT NULL,
  revision_id   bigint NOT NULL REFERENCES team_revisions(id) ON DELETE CASCADE,
  path          text NOT NULL,
  language      text NOT NULL,
  content_type  text NOT NULL,
  content_hash  text NOT NULL,
  size          bigint NOT NULL,
  line_count    integer NOT NULL,
  UNIQUE (revision_id, path)
);

CREATE TABLE team_chunks (
  id           bigserial PRIMARY KEY,
  repo_id      bigint NOT NULL,
  revision_id  bigint NOT NULL REFERENCES team_revisions(id) ON DELETE CASCADE,
  file_id      bigint NOT NULL REFERENCES team_files(id) ON DELETE CASCADE,
  ordinal      integer NOT NULL,
  kind         text NOT NULL,
  start_line   integer NOT NULL,
  end_line     integer NOT NULL,
  start_byte   integer NOT NULL,
  end_byte     integer NOT NULL,
  hash         text NOT NULL,
  doc_id       bigint NOT NULL,
  symbol       text,
  container    text,
  signature    text,
  ts_ms        bigint
);
CREATE INDEX team_chunks_revision_doc ON team_chunks(revision_id, doc_id);
CREATE INDEX team_chunks_file ON team_chunks(file_id);
CREATE INDEX team_chunks_hash ON team_chunks(repo_id, hash);
CREATE INDEX team_files_content ON team_files(repo_id, content_hash);

CREATE TABLE team_revision_docs (
  revision_id  bigint NOT NULL REFERENCES team_revisions(id) ON DELETE CASCADE,
  doc_id       bigint NOT NULL REFERENCES team_docs(id),
  n            integer NOT NULL,
  PRIMARY KEY (revision_id, doc_id)
);
CREATE INDEX team_revision_docs_doc ON team_revision_docs(doc_id);

CREATE TABLE team_vectors (
  repo_id     bigint NOT NULL REFERENCES team_repos(id) ON DELETE CASCADE,
  model       text NOT NULL,
  chunk_hash  text NOT NULL,
  vector      bytea NOT NULL,
  PRIMARY KEY (repo_id, model, chunk_hash)
);
`,
};

export const PG_MIGRATIONS: readonly PgMigration[] = [migration001];
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;
