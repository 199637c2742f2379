/**
 * The PostgreSQL half of a team lexical search, per repository head revision: document
 * frequencies of query terms, the postings of the terms a query keeps, and the chunk rows of the
 * best-scoring postings, as the `FtsCandidate`s SQLite's SearchRepo would return.
 */
import type { ChunkKind } from '../core/chunk.js';
import type { ContentType } from '../core/file.js';
import type { FtsCandidate, FtsFilter } from '../store/search-repo.js';
import { fts5Bm25, parseFtsExpression, type ScoredRow } from './fts5-bm25.js';
import { termKey } from './payload.js';
import type { Sql } from './pg-db.js';

/** A repository's head revision and its BM25 totals (FTS5's row count and token count). */
export interface RevisionStats {
  readonly repoId: number;
  readonly name: string;
  readonly revision: number;
  readonly files: number;
  readonly rows: number;
  readonly tokens: number;
}

/** Chunk rows of the revision containing each term, in any column (with multiplicity): `fts5vocab` 'row' `doc`. */
export async function documentFrequencies(sql: Sql, rev: RevisionStats, terms: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(terms)];
  if (unique.length === 0) return new Map();
  const byKey = new Map(unique.map((t) => [termKey(t), t]));
  const rows = (
    await sql(
      `SELECT p.term, sum(rd.n)::int AS df FROM (SELECT DISTINCT term, doc_id FROM team_postings WHERE repo_id = $1 AND term = ANY($2::text[])) p
       JOIN team_revision_docs rd ON rd.revision_id = $3 AND rd.doc_id = p.doc_id GROUP BY p.term`,
      [rev.repoId, [...byKey.keys()], rev.revision],
    )
  ).rows;
  return new Map(rows.map((r) => [byKey.get(String(r['term']))!, Number(r['df'])]));
}

/** Every posting of `terms` in the revision, grouped by doc (a posting set shared by `multiplicity` chunk rows). */
export async function revisionPostings(sql: Sql, rev: RevisionStats, terms: readonly string[]): Promise<Map<number, ScoredRow>> {
  const byKey = new Map([...new Set(terms)].map((t) => [termKey(t), t]));
  const out = new Map<number, { postings: Map<string, Map<number, number[]>>; length: number; multiplicity: number }>();
  if (byKey.size === 0) return out;
  const rows = (
    await sql(
      `SELECT p.doc_id, p.term, p.col, p.positions, rd.n, d.length FROM team_postings p
       JOIN team_revision_docs rd ON rd.revision_id = $3 AND rd.doc_id = p.doc_id JOIN team_docs d ON d.id = p.doc_id
       WHERE p.repo_id = $1 AND p.term = ANY($2::text[])`,
      [rev.repoId, [...byKey.keys()], rev.revision],
    )
  ).rows;
  for (const r of rows) {
    const id = Number(r['doc_id']);
    let doc = out.get(id);
    if (!doc) out.set(id, (doc = { postings: new Map(), length: Number(r['length']), multiplicity: Number(r['n']) }));
    const term = byKey.get(String(r['term']))!;
    let cols = doc.postings.get(term);
    if (!cols) doc.postings.set(term, (cols = new Map()));
    cols.set(Number(r['col']), r['positions'] as number[]);
  }
  return out;
}

const CHUNK_COLUMNS = `c.id, c.doc_id, f.path, f.language, f.content_type, c.kind, c.start_line, c.end_line, c.start_byte, c.end_byte,
  f.content_hash, c.hash, c.symbol, c.container, c.signature, c.ts_ms`;

function candidate(r: Record<string, unknown>, bm25: number): FtsCandidate {
  return {
    chunkId: Number(r['id']),
    path: String(r['path']),
    language: String(r['language']),
    contentType: String(r['content_type']) as ContentType,
    kind: String(r['kind']) as ChunkKind,
    startLine: Number(r['start_line']),
    endLine: Number(r['end_line']),
    startByte: Number(r['start_byte']),
    endByte: Number(r['end_byte']),
    fileHash: String(r['content_hash']),
    chunkHash: String(r['hash']),
    symbol: (r['symbol'] as string | null) ?? null,
    container: (r['container'] as string | null) ?? null,
    signature: (r['signature'] as string | null) ?? null,
    bm25,
    tsMs: r['ts_ms'] === null ? null : Number(r['ts_ms']),
  };
}

/**
 * The top `limit` chunk rows for one MATCH expression, by (bm25, chunk id) as SearchRepo.search
 * orders them; filters apply before the cut, so they never lose results. `termsOf` gives each
 * phrase's terms (the query tokenizer's output); `postings` must cover every term of every phrase.
 */
export async function matchCandidates(
  sql: Sql,
  rev: RevisionStats,
  expression: string,
  termsOf: (phrase: string) => readonly string[],
  postings: ReadonlyMap<number, ScoredRow>,
  weights: readonly number[],
  limit: number,
  filter: FtsFilter,
): Promise<FtsCandidate[]> {
  const parsed = parseFtsExpression(expression);
  const scores = fts5Bm25(parsed, parsed.phrases.map(termsOf), postings, { rows: rev.rows, tokens: rev.tokens }, weights);
  if (scores.size === 0) return [];
  const filtered = Boolean(filter.languages?.length || filter.contentTypes?.length || filter.pathMatch);
  const ordered = [...scores].sort((a, b) => a[1] - b[1]);
  // unfiltered: the docs that can reach the top `limit` rows, ties at the cut included (chunk ids break them)
  let docs = ordered;
  if (!filtered) {
    let rows = 0;
    let cut = ordered.length;
    for (let i = 0; i < ordered.length; i++) {
      rows += postings.get(ordered[i]![0])!.multiplicity;
      if (rows >= limit) {
        cut = i + 1;
        while (cut < ordered.length && ordered[cut]![1] === ordered[i]![1]) cut++;
        break;
      }
    }
    docs = ordered.slice(0, cut);
  }
  const score = new Map(docs);
  const rows = (
    await sql(`SELECT ${CHUNK_COLUMNS} FROM team_chunks c JOIN team_files f ON f.id = c.file_id WHERE c.revision_id = $1 AND c.doc_id = ANY($2::bigint[])`, [
      rev.revision,
      docs.map((d) => d[0]),
    ])
  ).rows;
  return rows
    .map((r) => candidate(r, score.get(Number(r['doc_id']))!))
    .filter((c) => (!filter.languages?.length || filter.languages.includes(c.language)) && (!filter.contentTypes?.length || filter.contentTypes.includes(c.contentType)) && (!filter.pathMatch || filter.pathMatch(c.path)))
    .sort((a, b) => a.bm25 - b.bm25 || a.chunkId - b.chunkId)
    .slice(0, limit);
}
