/**
 * search_text over the team index: pg_trgm narrows each repository's files to those whose body
 * contains the pattern's literal (`LIKE`/`ILIKE` on a GIN trigram index, the approach zoekt takes
 * with its trigram index), then the candidates are scanned in process by the SQLite path's own
 * scanner (`scanBuffer`), so a match is exactly what `scry search-text` reports on the same files.
 */
import { EngineError } from '../core/errors.js';
import { pathMatcher } from '../search/filters.js';
import { compileTextPattern, type TextPattern } from '../search/text-pattern.js';
import { REGEX_MAX_FILE_BYTES, scanBuffer, textSearchResult } from '../search/text-search.js';
import type { PgDb, Sql } from './pg-db.js';
import { restoredBody } from './pg-push.js';
import { heads } from './pg-search.js';
import type { TeamTextOptions, TeamTextResult } from './team-store.js';

const BODIES_PER_QUERY = 64;

const intOption = (name: string, value: number | undefined, min: number, max: number, fallback: number): number => {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw new EngineError('INVALID_ARGUMENT', { name, reason: `must be an integer from ${min} to ${max}` });
  return v;
};

const list = (v: string | readonly string[] | undefined): string[] => (v === undefined ? [] : typeof v === 'string' ? [v] : [...v]).map((s) => String(s).trim()).filter((s) => s !== '');

/** Content hashes of the repository whose body contains the prefilter text (trigram index), or undefined when the pattern has none. */
async function candidates(sql: Sql, repoId: number, p: TextPattern): Promise<Set<string> | undefined> {
  const pre = p.prefilter;
  if (!pre) return undefined;
  const like = `%${pre.text.replace(/[\\%_]/g, '\\$&')}%`;
  const rows = (await sql(`SELECT hash FROM team_contents WHERE repo_id = $1 AND body ${pre.ignoreAsciiCase ? 'ILIKE' : 'LIKE'} $2`, [repoId, like])).rows;
  return new Set(rows.map((r) => String(r['hash'])));
}

interface FileRow {
  readonly path: string;
  readonly hash: string;
  readonly size: number;
}

export async function searchTeamText(db: PgDb, query: string, options: TeamTextOptions = {}): Promise<TeamTextResult> {
  const started = performance.now();
  const limit = intOption('limit', options.limit, 1, 1000, 30);
  const timeoutMs = intOption('timeoutMs', options.timeoutMs, 1, 60_000, 10_000);
  const pattern = compileTextPattern(query, { regex: options.regex ?? false, caseSensitive: options.caseSensitive });
  options.signal?.throwIfAborted();
  const match = pathMatcher(list(options.paths));
  const deadline = started + timeoutMs;
  const matches: Array<TeamTextResult['matches'][number]> = [];
  let filesWithMatches = 0;
  let filesScanned = 0;
  let filesSkipped = 0;
  let timedOut = false;
  await db.read(async (sql) => {
    for (const rev of await heads(sql, options.repos)) {
      const all = (await sql('SELECT path, content_hash, size FROM team_files WHERE revision_id = $1 ORDER BY path COLLATE "C"', [rev.revision])).rows
        .map((r): FileRow => ({ path: String(r['path']), hash: String(r['content_hash']), size: Number(r['size']) }))
        .filter((f) => !match || match(f.path));
      const files = pattern.regex ? all.filter((f) => f.size <= REGEX_MAX_FILE_BYTES) : all;
      filesSkipped += all.length - files.length;
      const possible = await candidates(sql, rev.repoId, pattern);
      const toScan = possible ? files.filter((f) => possible.has(f.hash)) : files;
      filesScanned += files.length - toScan.length;
      for (let i = 0; i < toScan.length; i += BODIES_PER_QUERY) {
        const batch = toScan.slice(i, i + BODIES_PER_QUERY);
        const rows = (await sql('SELECT hash, body, nuls FROM team_contents WHERE repo_id = $1 AND hash = ANY($2::text[])', [rev.repoId, [...new Set(batch.map((f) => f.hash))]])).rows;
        const bodies = new Map(rows.map((r) => [String(r['hash']), Buffer.from(restoredBody(String(r['body']), r['nuls'] as number[] | null), 'utf8')]));
        for (const f of batch) {
          if (performance.now() > deadline) {
            timedOut = true;
            return;
          }
          const buf = bodies.get(f.hash);
          if (!buf) continue;
          filesScanned++;
          const hits = scanBuffer(buf, pattern, limit + 1 - matches.length);
          if (hits.length > 0) filesWithMatches++;
          for (const h of hits) matches.push({ repo: rev.name, path: f.path, ...h });
          if (matches.length > limit) return;
        }
        options.signal?.throwIfAborted();
      }
    }
  });
  return textSearchResult(query, pattern, limit, started, { matches, filesWithMatches, filesScanned, filesSkipped, timedOut });
}
