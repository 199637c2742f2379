/**
 * The paraphrase set (issue 17): questions whose words are not the code's words ("undo what was
 * written when fetching the development headers fails half way" → node-gyp's `rollback`), over a
 * small corpus copied from pinned node_modules (commander, picomatch, better-sqlite3 and node-gyp
 * sources: the test/quality corpus machinery, a subset of it). Every gold is a function, named by
 * path and symbol and located with scry's own outline; a query hits at the first result chunk
 * overlapping it.
 *
 * BM25 alone (lexical mode) and hybrid with an embedding provider run on the same index. The
 * provider is `SCRY_PARAPHRASE_PROVIDER` (`builtin`, `use-lite`), else `builtin` when this build
 * has it. With `builtin`, hybrid must beat BM25 alone: the shipped model exists for these
 * questions. With another provider the numbers are only reported (USE-lite takes minutes to embed
 * the corpus on 2 cores: set the variable to run it). `UPDATE_QUALITY=1` writes stats.txt.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEngineError } from '../../src/core/errors.js';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';
import { buildCorpus } from '../quality/corpus.js';
import { PARAPHRASE_CORPUS, readParaphraseQueries } from './corpus.js';
import { formatRow, functionRank, HEADER, summarize, type Span, type Summary } from './metrics.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const UPDATE = process.env['UPDATE_QUALITY'] === '1';
const ASKED = process.env['SCRY_PARAPHRASE_PROVIDER'];
/** The provider whose hybrid search must beat BM25 alone. */
const MUST_BEAT = 'builtin';

const QUERIES = readParaphraseQueries();

/** Results fetched per query: function hit@10 needs at least 10 chunks. */
const LIMIT = 10;

async function ranks(engine: Engine, gold: Map<string, Span[]>, mode: 'lexical' | 'hybrid'): Promise<Array<number | null>> {
  const out: Array<number | null> = [];
  for (const q of QUERIES) {
    const r = await engine.search(q.query, { limit: LIMIT, mode, rerank: false });
    expect(r.meta.mode, `${q.id}: ${r.meta.semantic}`).toBe(mode);
    out.push(functionRank(r.results, gold.get(q.id)!));
  }
  return out;
}

/** The engine with `provider`, or undefined when this build does not know it (CONFIG_INVALID). */
async function engineWith(root: string, dir: string, provider: string): Promise<Engine | undefined> {
  const config = { embed: { provider, batchSize: 64 } } as unknown as ConfigInput;
  try {
    return await createEngine({ root, db: join(dir, `${provider}.db`), env: isolatedEnv(dir), config });
  } catch (err) {
    if (isEngineError(err) && err.code === 'CONFIG_INVALID' && ASKED === undefined) return undefined;
    throw err;
  }
}

describe('paraphrase set: natural-language questions in other words than the code', () => {
  const tmp = tempDir('scry-paraphrase-');
  const gold = new Map<string, Span[]>();
  let engine: Engine | undefined;
  let provider = ASKED ?? MUST_BEAT;
  let lexical: Summary;
  let hybrid: Summary | undefined;

  beforeAll(async () => {
    const root = join(tmp.dir, 'corpus');
    mkdirSync(root);
    buildCorpus(root, PARAPHRASE_CORPUS);
    engine = await engineWith(root, tmp.dir, provider);
    if (!engine) {
      // this build has no built-in model: BM25 alone is measured, the comparison is skipped
      provider = 'none';
      engine = await createEngine({ root, db: join(tmp.dir, 'lexical.db'), env: isolatedEnv(tmp.dir) });
    }
    const report = await engine.index();
    if (report.embedding && 'error' in report.embedding) throw new Error(report.embedding.error.message);
    const missing: string[] = [];
    for (const q of QUERIES) {
      const spans: Span[] = [];
      for (const e of q.expected) {
        const outline = await engine.outline(e.path);
        const s = outline.symbols.filter((x) => x.name === e.symbol);
        if (s.length === 0) missing.push(`${q.id}: ${e.path} defines no ${e.symbol} (it has ${outline.symbols.map((x) => x.name).join(', ')})`);
        spans.push(...s.map((x) => ({ path: e.path, startLine: x.startLine, endLine: x.endLine })));
      }
      gold.set(q.id, spans);
    }
    expect(missing).toEqual([]);
    lexical = summarize(await ranks(engine, gold, 'lexical'));
    if (provider !== 'none') hybrid = summarize(await ranks(engine, gold, 'hybrid'));
    const lines = [HEADER, formatRow('lexical (BM25 alone)', lexical), ...(hybrid ? [formatRow(`hybrid ${provider}`, hybrid)] : [])];
    process.stderr.write(`\nparaphrase set, function level:\n${lines.join('\n')}\n`);
    if (UPDATE) writeFileSync(join(HERE, `stats-${provider === 'none' ? 'lexical' : provider}.txt`), `${lines.join('\n')}\n`);
  }, 1_800_000);

  afterAll(() => {
    engine?.close();
    tmp.cleanup();
  });

  it('has at least 30 well-formed queries, each gold a function of the corpus', () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(QUERIES.map((q) => q.id)).size).toBe(QUERIES.length);
    for (const q of QUERIES) expect(gold.get(q.id)!.length, q.id).toBeGreaterThan(0);
  });

  it('is a set where the question does not name the function', () => {
    // the words of a query do not contain the gold symbol's name (as a whole word, any case)
    for (const q of QUERIES) for (const e of q.expected) expect(q.query.toLowerCase().split(/\W+/), q.id).not.toContain(e.symbol.toLowerCase());
  });

  it(`hybrid with ${MUST_BEAT} beats BM25 alone (MRR@10 and recall@5 at function level)`, (ctx) => {
    if (provider !== MUST_BEAT || !hybrid) return ctx.skip();
    expect(hybrid.mrr).toBeGreaterThan(lexical.mrr);
    expect(hybrid.r5).toBeGreaterThanOrEqual(lexical.r5);
  });
});
