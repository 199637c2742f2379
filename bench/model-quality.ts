/**
 * Lexical against hybrid search with an embedding model (issue 17), on three query sets, per
 * query kind:
 * - golden: test/quality/queries.json over the quality corpus (kinds identifier, natural, docs,
 *   long, path; file-level gold, any expected file counts);
 * - nl: the natural-language slice (bench/nlslice/, mined by bench/mine-nl-slice.ts, the repositories of `--split`: doc comment
 *   first sentence → its function, the comment blanked in the indexed copy; grouped by language);
 * - paraphrase: the hand-written paraphrase set (test/paraphrase; function gold);
 * - devset: the development benchmark (bench/devset/), `--split held-out` (default) or `tune`;
 *   grouped long (issue-like) / short.
 *
 *   npx tsx bench/model-quality.ts [--sets golden,paraphrase,nl,devset] [--providers builtin,use-lite]
 *     [--split held-out|tune|all] [--fusion "name=vector:0.5,symbol:1;name2=k:30"] [--only owner/name] [--learned]
 *
 * Variants: `lexical` (no provider), `hybrid-<provider>` (shipped fusion weights) and, per
 * `--fusion` entry, `hybrid-<provider>/<name>` with those `search.fusion` values; with `--learned`,
 * also `lexical/learned` and `hybrid-<provider>/learned` (`search.ranking.learned`). The score-level
 * blend is a fusion value too: `--fusion "blend0.2=blend:0.2"` (lexical + 0.2 × cosine). Metrics per
 * variant and group: file Acc@1/5/10, MRR@10, function hit@5/10 (src/eval/metrics.ts), and the
 * paired difference of MRR@10 and Acc@10 against lexical with a 95% bootstrap interval (2,000
 * resamples of the queries, seeded): a difference whose interval holds 0 is noise.
 * Indexes are cached: bench/.semantic-cache/ (golden, shared with semantic-quality.ts),
 * bench/.nlslice-cache/<repo>/, bench/.devset-cache/<repo>/ (`<commit>.<provider>-<model>-<version>.db`,
 * vectors shared between commits through `vectors-<provider>-<model>-<version>.db`). Writes
 * bench/results/model-quality-<sets>-<providers>[-<split>].json.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, type ConfigInput, type Engine } from '../src/index.js';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import { scoreQuery, type GoldTarget, type QueryScore } from '../src/eval/metrics.js';
import { parseQueriesFile, type EvalQuery } from '../src/eval/queries-file.js';
import { PARAPHRASE_CORPUS, readParaphraseQueries } from '../test/paraphrase/corpus.js';
import { buildCorpus } from '../test/quality/corpus.js';
import { embedIndex, providerFor } from './embed-cache.js';
import { cacheOf, DEV_REPOS, fileOf, isLong, mirrorOf, splitOfRepo } from './mine-devset.js';
import { ensureNlTree, nlCacheOf, readManifest, readNlQueries } from './nl-slice.js';
import { formatTables, type Row, type Variant } from './quality-table.js';
import { environment, writeResult } from './results.js';

const SEMANTIC_CACHE = join(import.meta.dirname, '.semantic-cache');
const PARAPHRASE_CACHE = join(import.meta.dirname, '.paraphrase-cache');
/** Results fetched per query: enough for 10 distinct files and function hit@10. */
const FETCH = 50;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** `search.fusion` values of one `--fusion` entry: `blend.natural:0.3` sets `blendByKind.natural`. */
function fusionOf(values: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const byKind: Record<string, number> = {};
  for (const kv of values.split(',')) {
    const [key, value] = [kv.split(':')[0]!.trim(), Number(kv.split(':')[1])];
    if (key.startsWith('blend.')) byKind[key.slice('blend.'.length)] = value;
    else out[key] = value;
  }
  return Object.keys(byKind).length > 0 ? { ...out, blendByKind: byKind } : out;
}

function variantsOf(providers: readonly string[], fusionArg: string | undefined, learned: boolean, expand: number | undefined): Variant[] {
  const out: Variant[] = [{ name: 'lexical' }, ...(learned ? [{ name: 'lexical/learned', ranking: { learned: true } }] : [])];
  if (expand !== undefined) out.push({ name: `lexical/expand${expand}`, ranking: { expansion: expand } });
  const grid = (fusionArg ?? '')
    .split(';')
    .filter((s) => s.trim() !== '')
    .map((s) => {
      const [name, values] = s.split('=') as [string, string];
      return { name: name.trim(), fusion: fusionOf(values) };
    });
  for (const p of providers) {
    out.push({ name: `hybrid-${p}`, provider: p });
    for (const g of grid) {
      out.push({ name: `hybrid-${p}/${g.name}`, provider: p, fusion: g.fusion });
      if (expand !== undefined) out.push({ name: `hybrid-${p}/${g.name}+expand${expand}`, provider: p, fusion: g.fusion, ranking: { expansion: expand } });
    }
    if (learned) out.push({ name: `hybrid-${p}/learned`, provider: p, ranking: { learned: true } });
  }
  return out;
}

const configOf = (v: Variant): ConfigInput => ({ embed: { provider: v.provider ?? 'none' }, ...(v.fusion || v.ranking ? { search: { ...(v.fusion ? { fusion: v.fusion } : {}), ...(v.ranking ? { ranking: v.ranking } : {}) } } : {}) }) as ConfigInput;

/** One searchable tree: the lexical index, and per provider the same index with vectors. */
interface Target {
  readonly root: string;
  readonly lexicalDb: string;
  /** Where a provider's vector db is kept, and the pool shared between commits (devset). */
  readonly dbFor: (provider: string) => string;
  readonly pool?: (provider: string) => string;
}

const embedders = new Map<string, Awaited<ReturnType<typeof providerFor>>>();
const embedReports: Array<{ target: string; provider: string; embedded: number; durationMs: number; providerMs: number }> = [];

/** The vectors' db of `provider` for `t`, named after the model's fingerprint, so a new model version never reads an old one's vectors. */
async function ensureVectors(t: Target, provider: string): Promise<string> {
  let e = embedders.get(provider);
  if (!e) embedders.set(provider, (e = await providerFor({ embed: { provider } } as ConfigInput, t.root)));
  const fp = await e.provider.fingerprint();
  const tag = `${provider}-${fp.model}-${fp.version}-${fp.dimensions}`.replace(/[^A-Za-z0-9.-]+/g, '_');
  const db = t.dbFor(tag);
  if (existsSync(db)) return db;
  process.stderr.write(`embedding ${t.lexicalDb} with ${tag}...\n`);
  const report = await embedIndex(t.lexicalDb, db, e, t.pool?.(tag));
  if (report) embedReports.push({ target: t.lexicalDb, provider: tag, embedded: report.embedded, durationMs: report.durationMs, providerMs: report.providerMs });
  return db;
}

/** Golden-set gold is "any of these files": Acc@k is the first gold file within k. */
function anyFileScore(s: QueryScore): QueryScore {
  const accAt: Record<number, boolean> = {};
  for (const k of Object.keys(s.accAt).map(Number)) accAt[k] = s.firstFileRank !== null && s.firstFileRank <= k;
  return { ...s, accAt };
}

async function runTarget(set: string, t: Target, queries: ReadonlyArray<EvalQuery & { group: string; anyFile?: boolean }>, variants: readonly Variant[], rows: Row[]): Promise<void> {
  for (const v of variants) {
    const db = v.provider ? await ensureVectors(t, v.provider) : t.lexicalDb;
    const engine: Engine = await createEngine({ root: t.root, db, env: {}, config: configOf(v), reroot: true });
    try {
      for (const q of queries) {
        const r = await engine.search(q.query, { limit: FETCH, rerank: false });
        const s = scoreQuery(r.results, q.expected);
        rows.push({ set, group: q.group, id: q.id, variant: v.name, mode: r.meta.mode, embedMs: r.meta.embedMs, score: q.anyFile ? anyFileScore(s) : s });
      }
    } finally {
      engine.close();
    }
  }
}

interface GoldenQuery {
  readonly id: string;
  readonly query: string;
  readonly expected: string[];
  readonly kind: string;
}

async function golden(variants: readonly Variant[], rows: Row[]): Promise<void> {
  const root = join(SEMANTIC_CACHE, 'corpus');
  if (!existsSync(root)) {
    mkdirSync(root, { recursive: true });
    buildCorpus(root);
  }
  const lexicalDb = join(SEMANTIC_CACHE, 'lexical.db');
  const engine = await createEngine({ root, db: lexicalDb, env: {} });
  await engine.index();
  engine.close();
  const raw = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'test', 'quality', 'queries.json'), 'utf8')) as GoldenQuery[];
  const queries = raw.map((q) => ({ id: q.id, query: q.query, expected: q.expected.map((path): GoldTarget => ({ path })), group: q.kind, anyFile: true }));
  await runTarget('golden', { root, lexicalDb, dbFor: (p) => join(SEMANTIC_CACHE, `${p}.vectors.db`) }, queries, variants, rows);
}

/** The paraphrase set (test/paraphrase): function gold located with scry's outline, as its test does. */
async function paraphrase(variants: readonly Variant[], rows: Row[]): Promise<void> {
  const root = join(PARAPHRASE_CACHE, 'corpus');
  if (!existsSync(root)) {
    mkdirSync(root, { recursive: true });
    buildCorpus(root, PARAPHRASE_CORPUS);
  }
  const lexicalDb = join(PARAPHRASE_CACHE, 'lexical.db');
  const engine = await createEngine({ root, db: lexicalDb, env: {} });
  await engine.index();
  const queries = [];
  for (const q of readParaphraseQueries()) {
    const expected: GoldTarget[] = [];
    for (const e of q.expected) for (const s of (await engine.outline(e.path)).symbols.filter((x) => x.name === e.symbol)) expected.push({ path: e.path, startLine: s.startLine, endLine: s.endLine });
    queries.push({ id: q.id, query: q.query, expected, group: 'natural', anyFile: true });
  }
  engine.close();
  await runTarget('paraphrase', { root, lexicalDb, dbFor: (p) => join(PARAPHRASE_CACHE, `${p}.db`) }, queries, variants, rows);
}

async function nlSlice(mirrors: string, split: string, variants: readonly Variant[], rows: Row[], only: string | undefined): Promise<void> {
  for (const entry of readManifest()) {
    if ((only && entry.repo !== only) || (split !== 'all' && splitOfRepo(entry.repo) !== split)) continue;
    const root = ensureNlTree(mirrors, entry);
    const lexicalDb = join(nlCacheOf(entry.repo), 'lexical.db');
    const engine = await createEngine({ root, db: lexicalDb, env: {} });
    await engine.index();
    engine.close();
    const queries = readNlQueries(entry.repo).map((q) => ({ ...q, group: entry.language }));
    await runTarget('nl', { root, lexicalDb, dbFor: (p) => join(nlCacheOf(entry.repo), `${p}.db`) }, queries, variants, rows);
    process.stderr.write(`nl ${entry.repo}: ${queries.length} queries\n`);
  }
}

async function devset(mirrors: string, split: string, variants: readonly Variant[], rows: Row[], only: string | undefined): Promise<void> {
  for (const r of DEV_REPOS) {
    if ((only && r.repo !== only) || !existsSync(fileOf(r.repo))) continue;
    const queries = parseQueriesFile(readFileSync(fileOf(r.repo), 'utf8'), fileOf(r.repo)).filter(() => split === 'all' || splitOfRepo(r.repo) === split);
    const trees = new CommitTrees(mirrorOf(mirrors, r.repo), cacheOf(r.repo));
    try {
      for (const [commit, group] of groupByCommit(queries)) {
        const base = await trees.at(commit);
        const lexicalDb = base.dbPath;
        const target: Target = { root: base.root, lexicalDb, dbFor: (p) => lexicalDb.replace(/\.db$/, `.${p}.db`), pool: (p) => join(cacheOf(r.repo), `vectors-${p}.db`) };
        await runTarget('devset', target, group.map((q) => ({ ...q, group: isLong(q.query) ? 'long' : 'short' })), variants, rows);
      }
    } finally {
      await trees.close();
    }
    process.stderr.write(`devset ${r.repo}: ${queries.length} queries\n`);
  }
}

async function main(): Promise<void> {
  const env = environment();
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const sets = (arg('--sets') ?? 'golden,nl').split(',');
  const providers = (arg('--providers') ?? 'builtin').split(',').filter((p) => p !== '');
  const split = arg('--split') ?? 'held-out';
  const only = arg('--only');
  const variants = variantsOf(providers, arg('--fusion'), process.argv.includes('--learned'), arg('--expand') !== undefined ? Number(arg('--expand')) : undefined);
  const rows: Row[] = [];
  try {
    if (sets.includes('golden')) await golden(variants, rows);
    if (sets.includes('paraphrase')) await paraphrase(variants, rows);
    if (sets.includes('nl')) await nlSlice(mirrors, split, variants, rows, only);
    if (sets.includes('devset')) await devset(mirrors, split, variants, rows, only);
  } finally {
    for (const e of embedders.values()) await e.provider.close();
  }
  const text = formatTables(rows, variants, { devsetSplit: split });
  process.stdout.write(`load ${env.loadAvg1m.toFixed(2)}, commit ${env.commit ?? '?'}${env.dirty ? ' (dirty)' : ''}\n${text}\n`);
  writeResult(`model-quality-${sets.join('+')}-${providers.join('+') || 'lexical'}${sets.includes('devset') || sets.includes('nl') ? `-${split}` : ''}`, { sets, providers, split, variants, embedReports, rows });
}

await main();
