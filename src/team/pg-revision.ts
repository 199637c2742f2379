/**
 * Committing, aborting and collecting revisions. `commitRevision` is the one transaction that
 * makes a push visible: manifest rows, per-revision statistics, the head, the old revision gone.
 */
import { EngineError } from '../core/errors.js';
import { checkManifest } from './payload.js';
import type { PgDb, Sql } from './pg-db.js';
import type { CommittedRevision, ManifestFile, OpenRevision, PushManifest } from './team-store.js';

const BATCH_ROWS = 5000;
const num = (v: unknown): number => Number(v);

async function lockOpen(sql: Sql, revision: OpenRevision): Promise<{ repo: number; head: number | null }> {
  const row = (
    await sql('SELECT r.repo_id, r.state, p.head FROM team_revisions r JOIN team_repos p ON p.id = r.repo_id WHERE r.id = $1 AND p.name = $2 FOR UPDATE OF r, p', [revision.id, revision.repo])
  ).rows[0];
  if (!row || row['state'] !== 'open') throw new EngineError('REVISION_NOT_OPEN', { repo: revision.repo, revision: revision.id, state: row ? String(row['state']) : 'unknown' });
  return { repo: num(row['repo_id']), head: row['head'] === null ? null : num(row['head']) };
}

/** Hash → id of the repository's rows among `hashes`; PUSH_INVALID naming the first missing one. */
async function resolve(sql: Sql, table: 'team_docs' | 'team_contents', repo: number, hashes: readonly string[], what: string): Promise<Map<string, number>> {
  const unique = [...new Set(hashes)];
  const idCol = table === 'team_docs' ? 'id' : '0';
  const rows = (await sql(`SELECT hash, ${idCol} AS id FROM ${table} WHERE repo_id = $1 AND hash = ANY($2::text[])`, [repo, unique])).rows;
  const map = new Map(rows.map((r) => [String(r['hash']), num(r['id'])]));
  const absent = unique.filter((h) => !map.has(h));
  if (absent.length > 0) throw new EngineError('PUSH_INVALID', { reason: `${absent.length} ${what} named by the manifest were never uploaded (first: ${absent[0]})` });
  return map;
}

async function insertFiles(sql: Sql, repo: number, revision: number, files: readonly ManifestFile[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let i = 0; i < files.length; i += BATCH_ROWS) {
    const b = files.slice(i, i + BATCH_ROWS);
    const rows = (
      await sql(
        `INSERT INTO team_files(repo_id, revision_id, path, language, content_type, content_hash, size, line_count)
         SELECT $1, $2, path, lang, ct, h, sz, lc FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::int[]) WITH ORDINALITY AS u(path, lang, ct, h, sz, lc, o) ORDER BY o
         RETURNING id, path`,
        [repo, revision, b.map((f) => f.path), b.map((f) => f.language), b.map((f) => f.contentType), b.map((f) => f.content), b.map((f) => f.size), b.map((f) => f.lineCount)],
      )
    ).rows;
    for (const r of rows) ids.set(String(r['path']), num(r['id']));
  }
  return ids;
}

async function insertChunks(sql: Sql, repo: number, revision: number, files: readonly ManifestFile[], fileIds: Map<string, number>, docIds: Map<string, number>): Promise<number> {
  const rows = files.flatMap((f) => f.chunks.map((c) => ({ f: fileIds.get(f.path)!, c })));
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    const b = rows.slice(i, i + BATCH_ROWS);
    const col = <T>(fn: (r: (typeof b)[number]) => T): T[] => b.map(fn);
    await sql(
      `INSERT INTO team_chunks(repo_id, revision_id, file_id, ordinal, kind, start_line, end_line, start_byte, end_byte, hash, doc_id, symbol, container, signature, ts_ms)
       SELECT $1, $2, f, o, k, sl, el, sb, eb, h, d, s, ct, sg, ts
       FROM unnest($3::bigint[], $4::int[], $5::text[], $6::int[], $7::int[], $8::int[], $9::int[], $10::text[], $11::bigint[], $12::text[], $13::text[], $14::text[], $15::bigint[])
         WITH ORDINALITY AS u(f, o, k, sl, el, sb, eb, h, d, s, ct, sg, ts, n) ORDER BY n`,
      [
        repo, revision, col((r) => r.f), col((r) => r.c.ordinal), col((r) => r.c.kind), col((r) => r.c.startLine), col((r) => r.c.endLine), col((r) => r.c.startByte), col((r) => r.c.endByte),
        col((r) => r.c.hash), col((r) => docIds.get(r.c.postings)!), col((r) => r.c.symbol), col((r) => r.c.container), col((r) => r.c.signature), col((r) => (r.c.tsMs === null ? null : Math.round(r.c.tsMs))),
      ],
    );
  }
  return rows.length;
}

/** Inserts manifest files and their chunks into an open revision, every referenced upload checked (PUSH_INVALID). */
async function addFiles(sql: Sql, repo: number, revision: number, files: readonly ManifestFile[]): Promise<number> {
  if (files.length === 0) return 0;
  const docIds = await resolve(sql, 'team_docs', repo, files.flatMap((f) => f.chunks.map((c) => c.postings)), 'chunk postings');
  await resolve(sql, 'team_contents', repo, files.map((f) => f.content), 'file bodies');
  const clash = (await sql('SELECT path FROM team_files WHERE revision_id = $1 AND path = ANY($2::text[]) LIMIT 1', [revision, files.map((f) => f.path)])).rows[0];
  if (clash) throw new EngineError('PUSH_INVALID', { reason: `${String(clash['path'])} appears twice` });
  const fileIds = await insertFiles(sql, repo, revision, files);
  return insertChunks(sql, repo, revision, files, fileIds, docIds);
}

/** Adds a batch of manifest files to an open revision (a manifest too large for one request goes in several). */
export async function putFiles(db: PgDb, revision: OpenRevision, files: PushManifest['files']): Promise<void> {
  checkManifest({ files });
  await db.write(async (sql) => {
    const { repo } = await lockOpen(sql, revision);
    await addFiles(sql, repo, revision.id, files);
  });
}

/**
 * Adds the last manifest files, computes the revision's BM25 statistics, moves the head and drops
 * the previous revision: one transaction.
 */
export async function commitRevision(db: PgDb, revision: OpenRevision, manifest: PushManifest): Promise<CommittedRevision> {
  checkManifest(manifest);
  return db.write(async (sql) => {
    const { repo, head } = await lockOpen(sql, revision);
    await addFiles(sql, repo, revision.id, manifest.files);
    await sql('INSERT INTO team_revision_docs(revision_id, doc_id, n) SELECT $1, doc_id, count(*) FROM team_chunks WHERE revision_id = $1 GROUP BY doc_id', [revision.id]);
    const counts = (await sql('SELECT (SELECT count(*) FROM team_files WHERE revision_id = $1)::int AS files, (SELECT count(*) FROM team_chunks WHERE revision_id = $1)::int AS chunks', [revision.id])).rows[0]!;
    const files = num(counts['files']);
    const chunks = num(counts['chunks']);
    await sql(
      `UPDATE team_revisions SET state = 'committed', committed_at = now(), files = $2, chunks = $3,
         total_length = (SELECT coalesce(sum(d.length::bigint * rd.n), 0) FROM team_revision_docs rd JOIN team_docs d ON d.id = rd.doc_id WHERE rd.revision_id = $1)
       WHERE id = $1`,
      [revision.id, files, chunks],
    );
    await sql('UPDATE team_repos SET head = $2 WHERE id = $1', [repo, revision.id]);
    if (head !== null) await sql('DELETE FROM team_revisions WHERE id = $1', [head]);
    return { repo: revision.repo, id: revision.id, files, chunks, previous: head };
  });
}

/** Tables whose statistics the planner needs right after a push (autovacuum would come a minute later). */
const ANALYZED = ['team_postings', 'team_docs', 'team_revision_docs', 'team_chunks', 'team_files', 'team_contents', 'team_vectors'];

/**
 * ANALYZE the team tables whose rows changed by more than a tenth since their last analyze (or
 * never analyzed): a first push otherwise leaves the planner guessing (a 10× slower plan for the
 * document frequencies of a fresh repository).
 */
export async function analyzeIfStale(db: PgDb): Promise<string[]> {
  const rows = (
    await db.query(
      `SELECT relname FROM pg_stat_user_tables WHERE relname = ANY($1::text[])
         AND (last_analyze IS NULL AND last_autoanalyze IS NULL OR n_mod_since_analyze > 0.1 * greatest(n_live_tup, 1000))`,
      [ANALYZED],
    )
  ).rows.map((r) => String(r['relname']));
  for (const t of rows) await db.query(`ANALYZE ${ANALYZED.find((a) => a === t)!}`);
  return rows;
}

export async function abortRevision(db: PgDb, revision: OpenRevision): Promise<void> {
  await db.write(async (sql) => {
    await lockOpen(sql, revision);
    await sql('DELETE FROM team_revisions WHERE id = $1', [revision.id]);
  });
}

/**
 * Deletes open revisions older than `olderThanMs` (pushes that died), then, per repository with no
 * open revision left, the postings and bodies no revision of it references (an open push may still
 * reference uploads its manifest will name, so those repositories keep theirs until it ends).
 */
export async function gc(db: PgDb, olderThanMs: number): Promise<{ revisions: number; chunks: number; contents: number }> {
  return db.write(async (sql) => {
    const revisions = (await sql("DELETE FROM team_revisions WHERE state = 'open' AND created_at < now() - make_interval(secs => $1::float8 / 1000)", [olderThanMs])).rowCount ?? 0;
    const idle = "p.id NOT IN (SELECT repo_id FROM team_revisions WHERE state = 'open')";
    const chunks = (
      await sql(`DELETE FROM team_docs d USING team_repos p WHERE d.repo_id = p.id AND ${idle} AND NOT EXISTS (SELECT 1 FROM team_revision_docs rd WHERE rd.doc_id = d.id)`)
    ).rowCount ?? 0;
    const contents = (
      await sql(
        `DELETE FROM team_contents c USING team_repos p WHERE c.repo_id = p.id AND ${idle}
           AND NOT EXISTS (SELECT 1 FROM team_files f JOIN team_revisions r ON r.id = f.revision_id WHERE f.repo_id = c.repo_id AND f.content_hash = c.hash)`,
      )
    ).rowCount ?? 0;
    await sql(
      `DELETE FROM team_vectors v USING team_repos p WHERE v.repo_id = p.id AND ${idle}
         AND NOT EXISTS (SELECT 1 FROM team_chunks c WHERE c.repo_id = v.repo_id AND c.hash = v.chunk_hash)`,
    );
    return { revisions, chunks, contents };
  });
}
