/**
 * read_file and list_files over the team index: a repository's head revision, bodies from
 * team_contents (content-addressed), sliced and bounded by the local read_file's own `sliceText`,
 * listed and filtered like the local list_files. A repository path is a string of the manifest,
 * never a file system path: absolute paths and `..` segments are refused before any query.
 */
import { EngineError } from '../core/errors.js';
import { pathMatcher } from '../search/filters.js';
import { checkReadOptions, sliceText, suggestPaths, type ReadFileOptions } from '../workspace/files.js';
import type { PgDb, Sql } from './pg-db.js';
import { restoredBody } from './pg-push.js';
import type { TeamFileListing, TeamFileSlice, TeamListFilesOptions } from './team-store.js';

const MAX_PATH_CHARS = 1024;

/**
 * A repository-relative path as the manifest stores it (`./` and duplicate slashes dropped), or
 * PATH_OUTSIDE_ROOT for one that is absolute (`/x`, `C:\x`, `\\host`) or climbs (`..`); INVALID_ARGUMENT
 * for an empty, over-long or NUL-holding one.
 */
export function repoPath(path: string): string {
  if (typeof path !== 'string' || path === '' || path.length > MAX_PATH_CHARS || path.includes('\0')) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: `must be a repository-relative path of 1 to ${MAX_PATH_CHARS} characters` });
  }
  const slashed = path.replace(/\\/g, '/');
  const segments = slashed.split('/');
  const clean = segments.filter((s) => s !== '' && s !== '.').join('/');
  // a drive letter is checked on the cleaned path too (`./C:` would become `C:`)
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed) || /^[A-Za-z]:/.test(clean) || segments.includes('..')) {
    throw new EngineError('PATH_OUTSIDE_ROOT', { path: path.slice(0, 200) }, { hint: 'paths are relative to the repository root, without .. segments: list_files shows them' });
  }
  if (clean === '') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'names no file' });
  return clean;
}

interface Head {
  readonly repoId: number;
  readonly revision: number;
}

/** The committed head of `repo`, or REPO_NOT_FOUND (no such repository, or never committed). */
async function head(sql: Sql, repo: string): Promise<Head> {
  const row = (await sql('SELECT id, head FROM team_repos WHERE name = $1', [repo])).rows[0];
  if (!row || row['head'] === null || row['head'] === undefined) throw new EngineError('REPO_NOT_FOUND', { repo });
  return { repoId: Number(row['id']), revision: Number(row['head']) };
}

export async function readTeamFile(db: PgDb, repo: string, path: string, options: ReadFileOptions = {}): Promise<TeamFileSlice> {
  const rel = repoPath(path);
  // the range is checked before the database is asked
  checkReadOptions(options);
  return db.read(async (sql) => {
    const h = await head(sql, repo);
    const row = (
      await sql(
        `SELECT f.language, f.content_hash, c.body, c.nuls FROM team_files f JOIN team_contents c ON c.repo_id = $1 AND c.hash = f.content_hash
         WHERE f.revision_id = $2 AND f.path = $3`,
        [h.repoId, h.revision, rel],
      )
    ).rows[0];
    if (!row) {
      const paths = (await sql('SELECT path FROM team_files WHERE revision_id = $1', [h.revision])).rows.map((r) => String(r['path']));
      throw new EngineError('FILE_NOT_FOUND', { path: rel, suggestions: suggestPaths(rel, paths) }, { hint: `paths are relative to the root of repository ${repo}; list_files shows them` });
    }
    const text = restoredBody(String(row['body']), row['nuls'] as number[] | null);
    return { repo, revision: h.revision, path: rel, language: String(row['language']), ...sliceText(text, options), sha256: String(row['content_hash']) };
  });
}

function checkPage(options: TeamListFilesOptions): { limit: number; offset: number } {
  const limit = options.limit ?? 200;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 10000' });
  if (!Number.isInteger(offset) || offset < 0) throw new EngineError('INVALID_ARGUMENT', { name: 'offset', reason: 'must be an integer ≥ 0' });
  return { limit, offset };
}

export async function listTeamFiles(db: PgDb, repo: string, options: TeamListFilesOptions = {}): Promise<TeamFileListing> {
  const { limit, offset } = checkPage(options);
  const globs = options.glob === undefined ? [] : typeof options.glob === 'string' ? [options.glob] : [...options.glob];
  const match = pathMatcher(globs.map((g) => g.trim()).filter((g) => g !== ''));
  const hidden = (p: string): boolean => p.startsWith('.') || p.includes('/.');
  return db.read(async (sql) => {
    const h = await head(sql, repo);
    const rows = (await sql('SELECT path, language, line_count, size FROM team_files WHERE revision_id = $1 ORDER BY path COLLATE "C"', [h.revision])).rows;
    const all = rows
      .map((r) => ({ path: String(r['path']), language: String(r['language']), lineCount: Number(r['line_count']), size: Number(r['size']) }))
      .filter((f) => (options.includeHidden === true || !hidden(f.path)) && (!match || match(f.path)));
    return { repo, revision: h.revision, total: all.length, offset, files: all.slice(offset, offset + limit) };
  });
}
