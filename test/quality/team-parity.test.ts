/**
 * Ranking parity of the team index (issue 23): the golden set's corpus indexed by SQLite, pushed
 * into PostgreSQL, and every query of queries.json ranked by both stores in both modes. The top 10
 * must be the same chunks in the same order, with scores equal within 1e-6 relative (the unrounded
 * ranking scores, before display rounding). team-parity.txt records the measured differences.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { createEngine } from '../../src/index.js';
import { withoutFileEvidence } from '../../src/search/kind-ranking.js';
import { lexicalSearch } from '../../src/search/lexical-search.js';
import { IndexStore } from '../../src/store/index-store.js';
import { PgDb } from '../../src/team/pg-db.js';
import { rankTeam, teamRankParams } from '../../src/team/pg-search.js';
import { openPgTeamStore } from '../../src/team/pg-team-store.js';
import { pushToStore } from '../../src/team/push-local.js';
import { readPushSource } from '../../src/team/push-source.js';
import { QueryTokenizer } from '../../src/team/query-tokenizer.js';
import { pgTestsEnabled, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { tempDir } from '../helpers/temp.js';
import { buildCorpus } from './corpus.js';
import { MODES, TOP_K, type QualityQuery } from './metrics.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const QUERIES = JSON.parse(readFileSync(join(HERE, 'queries.json'), 'utf8')) as QualityQuery[];
const MAX_RELATIVE = 1e-6;

describe.runIf(pgTestsEnabled())('team index ranks the golden set as the SQLite store does', () => {
  const tmp = tempDir('scry-team-parity-');
  let cluster: PgCluster;
  let db: string;
  let local: IndexStore;
  let pg: PgDb;
  const tok = new QueryTokenizer();

  beforeAll(async () => {
    cluster = await startPgCluster();
    const corpus = join(tmp.dir, 'corpus');
    mkdirSync(corpus);
    buildCorpus(corpus);
    db = join(tmp.dir, 'index.db');
    const engine = await createEngine({ root: corpus, db, env: {} });
    await engine.index();
    engine.close();
    const store = openPgTeamStore(cluster.url);
    await store.migrate();
    const source = readPushSource(db);
    try {
      await pushToStore(store, 'golden', source);
    } finally {
      source.close();
      await store.close();
    }
    local = IndexStore.open(db, { create: false });
    pg = new PgDb(cluster.url);
  }, 600_000);

  afterAll(async () => {
    local?.close();
    tok.close();
    await pg?.close();
    await cluster?.stop();
    tmp.cleanup();
  });

  it('same top 10, same scores within 1e-6 relative, for every query in both modes', async () => {
    const { mismatches, maxRel, compared } = await compare(DEFAULT_CONFIG.search);
    writeFileSync(
      join(HERE, 'team-parity.txt'),
      `team index vs SQLite store, golden set (${QUERIES.length} queries × ${MODES.length} modes, top ${TOP_K})\n` +
        `top-10 lists differing: ${mismatches.length}\nscores compared: ${compared}\nmax relative score difference: ${maxRel.toExponential(2)}\n` +
        mismatches.join('\n') + (mismatches.length ? '\n' : ''),
    );
    expect(mismatches).toEqual([]);
    expect(maxRel).toBeLessThanOrEqual(MAX_RELATIVE);
  }, 600_000);

  it('the doc field (comments, docstrings) is pushed and weighed as SQLite weighs it', async () => {
    // at the default doc weight (= body's) a comment pushed into the wrong column would score the same
    const c = DEFAULT_CONFIG.search;
    const { mismatches, maxRel } = await compare({ ...c, weights: { ...c.weights, doc: 3 } });
    expect(mismatches).toEqual([]);
    expect(maxRel).toBeLessThanOrEqual(MAX_RELATIVE);
  }, 600_000);

  /** Both stores' top 10 for every query and mode under `c`. */
  async function compare(c: typeof DEFAULT_CONFIG.search): Promise<{ mismatches: string[]; maxRel: number; compared: number }> {
    let maxRel = 0;
    let compared = 0;
    const mismatches: string[] = [];
    for (const q of QUERIES) {
      for (const mode of MODES) {
        const files = mode === 'files';
        // the team index ranks without the file-evidence steps (fileScore, mentionBoost; docs/DESIGN.md "Team index"): compared as such
        const sqlite = lexicalSearch(local, { query: q.query, limit: TOP_K, files, filters: {}, weights: c.weights, ranking: withoutFileEvidence(c.ranking), snippetLines: 4, rankOnly: true });
        const team = await pg.read((sql) => rankTeam(sql, tok, teamRankParams(q.query, { k: TOP_K, files }, c), ['golden']));
        const a = sqlite.rows.map((r) => `${r.path}:${r.startLine}-${r.endLine}`);
        const b = team.top.map((t) => `${t.p.hit.path}:${t.p.hit.startLine}-${t.p.hit.endLine}`);
        if (JSON.stringify(a) !== JSON.stringify(b)) mismatches.push(`${q.id} ${mode}\n  sqlite ${a.join(' ')}\n  team   ${b.join(' ')}`);
        sqlite.rows.forEach((r, i) => {
          const s = team.top[i]?.p.score;
          if (s === undefined) return;
          const rel = Math.abs(s - r.score) / Math.max(Math.abs(r.score), 1e-12);
          maxRel = Math.max(maxRel, rel);
          compared++;
        });
        expect(team.outcomes[0]?.terms ?? [], q.id).toEqual(sqlite.terms);
      }
    }
    return { mismatches, maxRel, compared };
  }
});
