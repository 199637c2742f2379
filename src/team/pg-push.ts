/**
 * The write side of the team index: repositories, content-addressed uploads and atomic revision
 * commits. A commit writes the whole manifest, moves the head and deletes the previous revision in
 * one transaction; searches read in REPEATABLE READ snapshots, so they see one revision whole.
 */
import { EngineError } from '../core/errors.js';
import { checkChunkPayload, checkContentPayload, checkRepoName, termKey } from './payload.js';
import type { PgDb, Sql } from './pg-db.js';
import type { ChunkPayload, ContentPayload, OpenRevision, TeamRepo, VectorPayload } from './team-store.js';

/** Rows per multi-row INSERT (each column travels as one array parameter). */
const BATCH_ROWS = 5000;

const num = (v: unknown): number => Number(v);

export const REPO_COLUMNS = `p.name, p.head, coalesce(r.files, 0) AS files, coalesce(r.chunks, 0) AS chunks,
  (extract(epoch FROM r.committed_at) * 1000)::float8 AS updated_ms`;

export function repoRow(row: Record<string, unknown>): TeamRepo {
  return {
    name: String(row['name']),
    head: row['head'] === null ? null : num(row['head']),
    files: num(row['files']),
    chunks: num(row['chunks']),
    updatedAtMs: row['updated_ms'] === null ? null : Math.round(num(row['updated_ms'])),
  };
}

export async function ensureRepo(db: PgDb, name: string): Promise<TeamRepo> {
  checkRepoName(name);
  await db.query('INSERT INTO team_repos(name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
  const row = (await db.query(`SELECT ${REPO_COLUMNS} FROM team_repos p LEFT JOIN team_revisions r ON r.id = p.head WHERE p.name = $1`, [name])).rows[0];
  return repoRow(row!);
}

export async function repoId(sql: Sql, name: string): Promise<number> {
  const row = (await sql('SELECT id FROM team_repos WHERE name = $1', [name])).rows[0];
  if (!row) throw new EngineError('REPO_NOT_FOUND', { repo: name });
  return num(row['id']);
}

/** The repository id of an open revision of `revision.repo`, locked for this transaction; REVISION_NOT_OPEN otherwise (also for another repository's revision). */
async function lockOpen(sql: Sql, revision: OpenRevision): Promise<number> {
  const row = (
    await sql('SELECT r.repo_id, r.state FROM team_revisions r JOIN team_repos p ON p.id = r.repo_id WHERE r.id = $1 AND p.name = $2 FOR UPDATE OF r', [revision.id, revision.repo])
  ).rows[0];
  if (!row || row['state'] !== 'open') throw new EngineError('REVISION_NOT_OPEN', { repo: revision.repo, revision: revision.id, state: row ? String(row['state']) : 'unknown' });
  return num(row['repo_id']);
}

export async function missing(db: PgDb, table: 'team_docs' | 'team_contents', repo: string, hashes: readonly string[]): Promise<string[]> {
  const unique = [...new Set(hashes)];
  return db.read(async (sql) => {
    const id = await repoId(sql, repo);
    const have = new Set((await sql(`SELECT hash FROM ${table} WHERE repo_id = $1 AND hash = ANY($2::text[])`, [id, unique])).rows.map((r) => String(r['hash'])));
    return unique.filter((h) => !have.has(h));
  });
}

export async function beginRevision(db: PgDb, repo: string): Promise<OpenRevision> {
  return db.write(async (sql) => {
    const row = (await sql('SELECT id, head FROM team_repos WHERE name = $1', [repo])).rows[0];
    if (!row) throw new EngineError('REPO_NOT_FOUND', { repo });
    const base = row['head'] === null ? null : num(row['head']);
    const rev = (await sql("INSERT INTO team_revisions(repo_id, state, base) VALUES ($1, 'open', $2) RETURNING id", [row['id'], base])).rows[0]!;
    return { repo, id: num(rev['id']), base };
  });
}

/** Stores new postings; a doc row and its postings land in one transaction, so a doc never exists without them. */
export async function putChunks(db: PgDb, revision: OpenRevision, chunks: readonly ChunkPayload[]): Promise<void> {
  for (const c of chunks) checkChunkPayload(c);
  await db.write(async (sql) => {
    const repo = await lockOpen(sql, revision);
    for (let i = 0; i < chunks.length; i += BATCH_ROWS) {
      const batch = chunks.slice(i, i + BATCH_ROWS);
      const inserted = (
        await sql('INSERT INTO team_docs(repo_id, hash, length) SELECT $1, * FROM unnest($2::text[], $3::int[]) ON CONFLICT (repo_id, hash) DO NOTHING RETURNING id, hash', [
          repo, batch.map((c) => c.hash), batch.map((c) => c.length),
        ])
      ).rows;
      const ids = new Map(inserted.map((r) => [String(r['hash']), num(r['id'])]));
      const terms: string[] = [];
      const docs: number[] = [];
      const cols: number[] = [];
      const positions: string[] = [];
      const flush = async (): Promise<void> => {
        if (terms.length === 0) return;
        await sql('INSERT INTO team_postings(repo_id, term, doc_id, col, positions) SELECT $1, t, d, c, p::int[] FROM unnest($2::text[], $3::bigint[], $4::smallint[], $5::text[]) AS u(t, d, c, p)', [repo, terms, docs, cols, positions]);
        terms.length = docs.length = cols.length = positions.length = 0;
      };
      for (const c of batch) {
        const id = ids.get(c.hash);
        if (id === undefined) continue; // already stored (content-addressed)
        for (const [term, col, pos] of c.postings) {
          terms.push(termKey(term));
          docs.push(id);
          cols.push(col);
          positions.push(`{${pos.join(',')}}`);
          if (terms.length >= BATCH_ROWS * 4) await flush();
        }
      }
      await flush();
    }
  });
}

/** A body as stored: PostgreSQL text holds no NUL, so each NUL becomes U+0001 and its index is kept in `nuls`. */
export function storedBody(body: string): { text: string; nuls: number[] | null } {
  if (!body.includes('\0')) return { text: body, nuls: null };
  const nuls: number[] = [];
  for (let i = body.indexOf('\0'); i !== -1; i = body.indexOf('\0', i + 1)) nuls.push(i);
  return { text: body.replace(/\0/g, '\u0001'), nuls };
}

/** The body `storedBody` stored. */
export function restoredBody(text: string, nuls: readonly number[] | null): string {
  if (!nuls || nuls.length === 0) return text;
  const chars = text.split('');
  for (const i of nuls) chars[i] = '\0';
  return chars.join('');
}

export async function putContents(db: PgDb, revision: OpenRevision, contents: readonly ContentPayload[]): Promise<void> {
  for (const c of contents) checkContentPayload(c);
  await db.write(async (sql) => {
    const repo = await lockOpen(sql, revision);
    for (const c of contents) {
      const s = storedBody(c.body);
      await sql('INSERT INTO team_contents(repo_id, hash, body, nuls) VALUES ($1, $2, $3, $4) ON CONFLICT (repo_id, hash) DO NOTHING', [repo, c.hash, s.text, s.nuls]);
    }
  });
}

export async function putVectors(db: PgDb, revision: OpenRevision, payload: VectorPayload): Promise<void> {
  if (!payload || typeof payload.model !== 'string' || payload.model.length === 0 || !Array.isArray(payload.vectors)) throw new EngineError('PUSH_INVALID', { reason: 'malformed vectors' });
  for (const [hash, v] of payload.vectors) if (!/^[0-9a-f]{64}$/.test(String(hash)) || !(v instanceof Uint8Array) || v.length < 8) throw new EngineError('PUSH_INVALID', { reason: 'malformed vector' });
  await db.write(async (sql) => {
    const repo = await lockOpen(sql, revision);
    for (let i = 0; i < payload.vectors.length; i += BATCH_ROWS) {
      const batch = payload.vectors.slice(i, i + BATCH_ROWS);
      await sql(
        `INSERT INTO team_vectors(repo_id, model, chunk_hash, vector) SELECT $1, $2, h, v FROM unnest($3::text[], $4::bytea[]) AS u(h, v)
         ON CONFLICT (repo_id, model, chunk_hash) DO UPDATE SET vector = excluded.vector`,
        [repo, payload.model, batch.map((b) => b[0]), batch.map((b) => Buffer.from(b[1]))],
      );
    }
  });
}
