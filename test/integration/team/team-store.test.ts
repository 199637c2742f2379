/**
 * The team store (issue 23) over a real PostgreSQL cluster: local SQLite indexes pushed into it,
 * revisions that are atomic, pushes refused whole, and the search behaviour both stores share,
 * checked on each store by one table of cases.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeVector } from '../../../src/embed/quantize.js';
import { createEngine, type Engine } from '../../../src/index.js';
import { openPgTeamStore } from '../../../src/team/pg-team-store.js';
import { pushToStore } from '../../../src/team/push-local.js';
import { readPushSource } from '../../../src/team/push-source.js';
import type { PushSource, TeamStore } from '../../../src/team/team-store.js';
import { EngineError } from '../../../src/core/errors.js';
import { writeSmallRepo } from '../../helpers/fixture-repo.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { tempDir } from '../../helpers/temp.js';

/** The EngineError `fn` rejects with. */
async function caught(fn: () => Promise<unknown>): Promise<EngineError | undefined> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error('expected an EngineError');
}

const QUERIES = ['open database wal', 'retry backoff', 'parse config loader', 'busy_timeout', 'exponential', 'installation guide', 'port'];

describe.runIf(pgTestsEnabled())('team store on PostgreSQL', () => {
  let cluster: PgCluster;
  let store: TeamStore;
  let engine: Engine;
  let root: string;
  let db: string;
  const tmp = tempDir('scry-team-');

  const withSource = async <T>(fn: (s: PushSource) => Promise<T>): Promise<T> => {
    const source = readPushSource(db);
    try {
      return await fn(source);
    } finally {
      source.close();
    }
  };

  beforeAll(async () => {
    cluster = await startPgCluster();
    store = openPgTeamStore(cluster.url);
    await store.migrate();
    root = join(tmp.dir, 'repo');
    writeSmallRepo(root);
    db = join(tmp.dir, 'index.db');
    engine = await createEngine({ root, db, env: {} });
    await engine.index();
    await withSource((s) => pushToStore(store, 'small', s));
  });
  afterAll(async () => {
    engine?.close();
    await store?.close();
    await cluster?.stop();
    tmp.cleanup();
  });

  it('ranks exactly as the SQLite store does, results naming the repository', async () => {
    for (const q of QUERIES) {
      const local = await engine.search(q, { limit: 10, mode: 'lexical' });
      const team = await store.search(q, { repos: ['small'], k: 10 });
      expect(team.results.map((r) => [r.path, r.startLine, r.score, r.snippet]), q).toEqual(local.results.map((r) => [r.path, r.startLine, r.score, r.snippet]));
      expect(team.meta.terms).toEqual(local.meta.terms);
      expect(team.results.every((r) => r.repo === 'small')).toBe(true);
    }
  });

  it('migrate is idempotent and refuses a database migrated by a newer build', async () => {
    expect(await store.migrate()).toEqual({ from: 1, to: 1 });
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      await client.query("UPDATE scry_team_meta SET value = '99' WHERE key = 'schema_version'");
      expect((await caught(() => store.migrate()))?.code).toBe('TEAM_DB_TOO_NEW');
    } finally {
      await client.query("UPDATE scry_team_meta SET value = '1' WHERE key = 'schema_version'");
      await client.end();
    }
  });

  it('a second push of the same index sends nothing; a changed file sends only its own chunks and body', async () => {
    const again = await withSource((s) => pushToStore(store, 'small', s));
    expect([again.sentChunks, again.sentContents]).toEqual([0, 0]);
    writeFileSync(join(root, 'src/http/retry_policy.py'), 'def retry_forever(fn):\n    """Retry until it works: zeppelin."""\n    while True:\n        fn()\n');
    await engine.index();
    const changed = await withSource((s) => pushToStore(store, 'small', s));
    expect(changed.sentContents).toBe(1);
    expect(changed.sentChunks).toBeGreaterThan(0);
    expect(changed.sentChunks).toBeLessThan(changed.chunks);
    expect((await store.search('zeppelin', { repos: ['small'] })).results.map((r) => r.path)).toEqual(['src/http/retry_policy.py']);
    expect((await store.search('exponential backoff', { repos: ['small'] })).results.map((r) => r.path)).not.toContain('src/http/retry_policy.py');
  });

  it('an open revision is invisible until committed; abort and gc leave the previous one served', async () => {
    const before = await store.search('zeppelin', { repos: ['small'] });
    const rev = await store.beginRevision('small');
    await withSource(async (s) => {
      const hashes = s.manifest.files.flatMap((f) => f.chunks.map((c) => c.postings));
      await store.putChunks(rev, s.chunks(hashes.slice(0, 3)));
    });
    // half a push: nothing of it is visible
    expect((await store.search('zeppelin', { repos: ['small'] })).results).toEqual(before.results);
    const head = (await store.listRepos()).find((r) => r.name === 'small')!.head;
    expect((await store.gc({ olderThanMs: 0 })).revisions).toBe(1);
    expect((await caught(() => store.commitRevision(rev, { files: [] })))?.code).toBe('REVISION_NOT_OPEN');
    expect((await store.listRepos()).find((r) => r.name === 'small')!.head).toBe(head);
    expect((await store.search('zeppelin', { repos: ['small'] })).results).toEqual(before.results);
  });

  it('refuses a push whole: missing uploads, tampered hashes, another repository’s revision', async () => {
    const head = (await store.listRepos()).find((r) => r.name === 'small')!.head;
    await store.ensureRepo('other');
    await withSource(async (s) => {
      // a manifest naming postings never uploaded to this repository
      const rev = await store.beginRevision('other');
      const err = await caught(() => store.commitRevision(rev, s.manifest));
      expect(err?.code).toBe('PUSH_INVALID');
      // postings whose hash is not theirs
      const [chunk] = s.chunks([s.manifest.files[0]!.chunks[0]!.postings]);
      const tampered = JSON.parse(JSON.stringify(chunk)) as { postings: [string, number, number[]][] };
      tampered.postings[0]![2] = tampered.postings[0]![2].map((x) => x + 1000);
      expect((await caught(() => store.putChunks(rev, [tampered as unknown as typeof chunk & object])))?.code).toBe('PUSH_INVALID');
      expect((await caught(() => store.putContents(rev, [{ hash: '0'.repeat(64), body: 'x' }])))?.code).toBe('PUSH_INVALID');
      // a revision id of repository `other` used as if it were `small`'s
      expect((await caught(() => store.putChunks({ repo: 'small', id: rev.id, base: null }, [chunk!])))?.code).toBe('REVISION_NOT_OPEN');
      expect((await caught(() => store.commitRevision({ repo: 'small', id: rev.id, base: null }, { files: [] })))?.code).toBe('REVISION_NOT_OPEN');
      // a path sent twice, in two batches of the manifest
      const chunkPayloads = s.chunks([...new Set(s.manifest.files[0]!.chunks.map((c) => c.postings))]);
      await store.putChunks(rev, chunkPayloads);
      await store.putContents(rev, s.contents([s.manifest.files[0]!.content]));
      await store.putFiles(rev, [s.manifest.files[0]!]);
      expect((await caught(() => store.putFiles(rev, [s.manifest.files[0]!])))?.code).toBe('PUSH_INVALID');
      // a malformed manifest
      const dup = { files: [s.manifest.files[0]!, s.manifest.files[0]!] };
      expect((await caught(() => store.commitRevision(rev, dup)))?.code).toBe('PUSH_INVALID');
      expect((await caught(() => store.commitRevision(rev, { files: [{ ...s.manifest.files[0]!, path: '../etc/passwd' }] })))?.code).toBe('PUSH_INVALID');
      await store.abortRevision(rev);
    });
    expect((await store.listRepos()).find((r) => r.name === 'small')!.head).toBe(head);
    expect((await store.listRepos()).find((r) => r.name === 'other')!.head).toBeNull();
    expect((await caught(() => store.beginRevision('nope')))?.code).toBe('REPO_NOT_FOUND');
    expect((await caught(() => store.search('x', { repos: ['nope'] })))?.code).toBe('REPO_NOT_FOUND');
    expect((await caught(() => store.ensureRepo('../x')))?.code).toBe('INVALID_ARGUMENT');
  });

  it('searches several repositories, one, or a set; each result names its repository', async () => {
    await withSource((s) => pushToStore(store, 'copy', s));
    const all = await store.search('parse config', { k: 20 });
    expect(new Set(all.results.map((r) => r.repo))).toEqual(new Set(['small', 'copy']));
    expect(all.meta.repos.map((r) => r.name).sort()).toEqual(['copy', 'small']);
    const one = await store.search('parse config', { repos: ['copy'], k: 20 });
    expect(new Set(one.results.map((r) => r.repo))).toEqual(new Set(['copy']));
    // the same index under two names ranks the same in each
    const small = await store.search('parse config', { repos: ['small'], k: 20 });
    expect(one.results.map((r) => [r.path, r.score])).toEqual(small.results.map((r) => [r.path, r.score]));
  });

  it('search_text gives the SQLite path’s matches (literal, case-insensitive, regex, path filter)', async () => {
    const cases: Array<[string, Parameters<TeamStore['searchText']>[1]]> = [
      ['port', {}],
      ['PORT', { caseSensitive: false }],
      ['retr(y|ies)', { regex: true }],
      ['db\\.pragma\\(', { regex: true }],
      ['8080', { paths: ['config'] }],
      ['zzz-not-there', {}],
    ];
    for (const [q, o] of cases) {
      const local = await engine.searchText(q, o);
      const team = await store.searchText(q, { ...o, repos: ['small'] });
      expect(team.matches.map((m) => [m.path, m.line, m.column, m.text]), q).toEqual(local.matches.map((m) => [m.path, m.line, m.column, m.text]));
      expect(team.matches.every((m) => m.repo === 'small')).toBe(true);
      expect(team.filesWithMatches).toBe(local.filesWithMatches);
    }
  });

  it('a term longer than a B-tree entry (decimal.js keeps a 1,025-digit constant) is pushed and found', async () => {
    const long = `n${'31415926535'.repeat(200)}`;
    writeFileSync(join(root, 'src/constants.js'), `export const LN10 = '${long}';\n`);
    await engine.index();
    await withSource((s) => pushToStore(store, 'small', s));
    const local = await engine.search(long, { limit: 5, mode: 'lexical' });
    expect(local.results[0]?.path).toBe('src/constants.js');
    const team = await store.search(long, { repos: ['small'], k: 5 });
    const fresh = await createEngine({ root, db: join(tmp.dir, 'fresh.db'), env: {} });
    await fresh.index();
    const f = await fresh.search(long, { limit: 5, mode: 'lexical' });
    fresh.close();
    // the team store matches a freshly built index: after incremental passes FTS5's own totals
    // still count rows deleted from its contentless table (docs/DESIGN.md "Team index")
    expect(team.results.map((r) => [r.path, r.score])).toEqual(f.results.map((r) => [r.path, r.score]));
  });

  it('stores vectors per chunk and scans them per repository', async () => {
    const rev = await store.beginRevision('copy');
    const manifest = await withSource(async (s) => s.manifest);
    const hashes = [...new Set(manifest.files.flatMap((f) => f.chunks.map((c) => c.hash)))];
    const unit = (i: number): Float32Array => {
      const v = new Float32Array(8);
      v[i % 8] = 1;
      v[(i + 3) % 8] = 0.5;
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    await store.putVectors(rev, { model: 'test@8@1', vectors: hashes.map((h, i) => [h, encodeVector(unit(i))] as const) });
    await store.abortRevision(rev); // vectors are per repository and chunk text, not per revision
    const hits = await store.searchVectors(unit(2), 'test@8@1', { repos: ['copy'], k: 3 });
    expect(hits[0]!.chunkHash).toBe(hashes[2]);
    expect(hits[0]!.score).toBeGreaterThan(0.99);
    expect(hits.every((h) => h.repo === 'copy')).toBe(true);
    expect(await store.searchVectors(unit(2), 'other-model', { repos: ['copy'] })).toEqual([]);
    expect(await store.sizeOnDisk()).toBeGreaterThan(0);
  });
});
