/**
 * Ranking quality on the development benchmark (bench/devset/, mined by bench/mine-devset.ts)
 * and on the natural-language slice (bench/nlslice/, doc-comment queries), for several ranking
 * configurations side by side, on the tuning half and the held-out half.
 *
 *   npx tsx bench/run-devset.ts [--sets devset,nl] [--mirrors DIR] [--only owner/name] [--variants a,b] [--split tune|held-out|all] [--misses]
 *
 * Every query is searched in the tree at its parent commit: the index of each commit is cached
 * under bench/.devset-cache/ (built on first use from a git worktree of the mirror, see
 * CommitTrees), so later runs only search. The halves are fixed by the query id (the mined
 * commit's sha): ids whose first hex digit is even tune, odd ones are held out. The NL slice is split
 * by repository (`split` in NL_REPOS and bench/nlslice/manifest.json). Tune on `tune`; report on
 * `held-out`.
 * Writes bench/results/devset.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, type ConfigInput } from '../src/index.js';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import { CUTOFFS, summarize, type EvalSummary } from '../src/eval/metrics.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { evalOne, type EvalQueryResult } from '../src/eval/run-eval.js';
import type { Engine } from '../src/index.js';
import type { EvalQuery } from '../src/eval/queries-file.js';
import { cacheOf, DEV_REPOS, fileOf, isLong, mirrorOf, splitOf, type Split } from './mine-devset.js';
import { ensureNlTree, NL_REPOS, nlCacheOf, readManifest, readNlQueries } from './nl-slice.js';
import { writeResult } from './results.js';

/** Ranking configurations compared; `default` is the shipped configuration. */
const ranking = (r: Record<string, unknown>): ConfigInput => ({ search: { ranking: r } }) as ConfigInput;

/** BM25 field weights over the shipped ones (stem 6, path 2, symbol 5, signature 2, body 1, parts 0.6), with `r` as ranking. */
const weighted = (w: Record<string, number>, r: Record<string, unknown> = {}): ConfigInput => ({ search: { weights: w, ranking: r } }) as ConfigInput;

const OFF = { queryWeights: false, definitionBoost: 1, testToSource: 0, nonCode: 1, fileSupport: 0, fileCap: 0 };
export const VARIANTS: Record<string, ConfigInput> = {
  /** Every technique of issue 4 off: BM25 over the code-aware fields with the Core engine II priors. */
  base: ranking(OFF),
  '+queryWeights': ranking({ ...OFF, queryWeights: true }),
  '+nonCode.4': ranking({ ...OFF, nonCode: 0.4 }),
  '+testToSource.5': ranking({ ...OFF, testToSource: 0.5 }),
  '+fileSupport.2': ranking({ ...OFF, fileSupport: 0.2 }),
  '+definition1.25': ranking({ ...OFF, definitionBoost: 1.25 }),
  'default-queryWeights': ranking({ queryWeights: false }),
  'default-nonCode': ranking({ nonCode: 1 }),
  'default-testToSource': ranking({ testToSource: 0 }),
  'default-fileSupport': ranking({ fileSupport: 0 }),
  'default-definition': ranking({ definitionBoost: 1 }),
  'default+fileCap2': ranking({ fileCap: 2 }),
  'default+fileCap3': ranking({ fileCap: 3 }),
  /** Ranking II: a file's extra chunks only when close to its best (the prototype: 2 extra within 0.7×). */
  'default+cap3w.7': ranking({ fileCap: 3, fileCapWithin: 0.7 }),
  'default+cap2w.7': ranking({ fileCap: 2, fileCapWithin: 0.7 }),
  'default+cap3w.5': ranking({ fileCap: 3, fileCapWithin: 0.5 }),
  'default+cap5w.5': ranking({ fileCap: 5, fileCapWithin: 0.5 }),
  'default+cap5w.7': ranking({ fileCap: 5, fileCapWithin: 0.7 }),
  'default+cap4w.5': ranking({ fileCap: 4, fileCapWithin: 0.5 }),
  'default+cap5w.6': ranking({ fileCap: 5, fileCapWithin: 0.6 }),
  'default+cap5w.4': ranking({ fileCap: 5, fileCapWithin: 0.4 }),
  'default+cap10w.7': ranking({ fileCap: 10, fileCapWithin: 0.7 }),
  /** Ranking II: code chunks that define nothing (statements, windows) demoted. */
  'default+nonDef.8': ranking({ nonDefinition: 0.8 }),
  'default+nonDef.6': ranking({ nonDefinition: 0.6 }),
  /** Ranking II: soft cap, a file's n-th chunk × d^(n−1). */
  'default+decay.9': ranking({ fileDecay: 0.9 }),
  'default+decay.8': ranking({ fileDecay: 0.8 }),
  'default+decay.95': ranking({ fileDecay: 0.95 }),
  /** Ranking II: chunk × (0.7 + 0.3 · normalised file score). */
  'default+blend.3': ranking({ fileBlend: 0.3 }),
  'default+blend.5': ranking({ fileBlend: 0.5 }),
  'default-fileSupport+blend.3': ranking({ fileSupport: 0, fileBlend: 0.3 }),
  'default+blend.3+cap3w.7': ranking({ fileBlend: 0.3, fileCap: 3, fileCapWithin: 0.7 }),
  /** Ranking II: BM25 field weights (symbol = definition names, signature, stem/path, parts). */
  'w:symbol8': weighted({ symbol: 8 }),
  'w:symbol3': weighted({ symbol: 3 }),
  'w:signature4': weighted({ signature: 4 }),
  'w:signature1': weighted({ signature: 1 }),
  'w:stem3': weighted({ stem: 3 }),
  'w:stem10': weighted({ stem: 10 }),
  'w:path4': weighted({ path: 4 }),
  'w:path1': weighted({ path: 1 }),
  'w:parts1': weighted({ parts: 1 }),
  'w:parts.3': weighted({ parts: 0.3 }),
  /** The shipped configuration. */
  default: {},
};


function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Row extends EvalQueryResult {
  /** Every gold file among the paths of the first 10 chunks (what a reader of a 10-result list sees). */
  readonly filesIn10: boolean;
  /** Distinct files among the first 10 chunks. */
  readonly distinctIn10: number;
  readonly set: 'devset' | 'nl';
  readonly repo: string;
  readonly split: Split;
  readonly long: boolean;
}

const f3 = (x: number): string => x.toFixed(3);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

function table(title: string, byVariant: Map<string, Row[]>, pick: (r: Row) => boolean): string {
  const out = [title, `${'variant'.padEnd(22)}${'n'.padStart(5)}${CUTOFFS.map((k) => `Acc@${k}`.padStart(8)).join('')}${'MRR'.padStart(8)}${['fn@1', 'fn@5', 'fn@10'].map((s) => s.padStart(8)).join('')}${'file@10c'.padStart(9)}${'files10c'.padStart(9)}${'p50ms'.padStart(8)}${'p90ms'.padStart(8)}`];
  for (const [name, rows] of byVariant) {
    const sel = rows.filter(pick);
    const s: EvalSummary = summarize(sel, sel.map((r) => r.tookMs));
    out.push(`${name.padEnd(22)}${String(s.queries).padStart(5)}${CUTOFFS.map((k) => f3(s.accAt[k]!).padStart(8)).join('')}${f3(s.mrr).padStart(8)}${[1, 5, 10].map((k) => (s.functionHitAt ? f3(s.functionHitAt[k]!) : '-').padStart(8)).join('')}${f3(mean(sel.map((r) => (r.filesIn10 ? 1 : 0)))).padStart(9)}${mean(sel.map((r) => r.distinctIn10)).toFixed(2).padStart(9)}${s.latencyMs.p50.toFixed(1).padStart(8)}${s.latencyMs.p90.toFixed(1).padStart(8)}`);
  }
  return out.join('\n');
}

type Runs = Map<string, Row[]>;

/** evalOne, plus what the first 10 chunks show: the gold files, and how many distinct files. */
async function evalRow(engine: Engine, q: EvalQuery): Promise<EvalQueryResult & Pick<Row, 'filesIn10' | 'distinctIn10'>> {
  const r = await evalOne(engine, q);
  const first = (await engine.search(q.query, { limit: 10, rerank: false })).results.map((h) => h.path);
  return { ...r, filesIn10: q.expected.every((g) => first.includes(g.path)), distinctIn10: new Set(first).size };
}

async function runDevset(mirrors: string, names: readonly string[], splitArg: string, only: string | undefined, byVariant: Runs): Promise<void> {
  for (const r of DEV_REPOS) {
    if (only && r.repo !== only) continue;
    if (!existsSync(fileOf(r.repo))) continue;
    const queries = parseQueriesFile(readFileSync(fileOf(r.repo), 'utf8'), fileOf(r.repo)).filter((q) => splitArg === 'all' || splitOf(q.id) === splitArg);
    const trees = new CommitTrees(mirrorOf(mirrors, r.repo), cacheOf(r.repo));
    try {
      for (const [i, [commit, group]] of [...groupByCommit(queries)].entries()) {
        const base = await trees.at(commit);
        // rotate the order per commit, so no variant always pays for a cold page cache
        const turn = i % names.length;
        for (const name of [...names.slice(turn), ...names.slice(0, turn)]) {
          const engine = await createEngine({ root: base.root, db: base.dbPath, config: VARIANTS[name] });
          try {
            for (const q of group) byVariant.get(name)!.push({ ...(await evalRow(engine, q)), set: 'devset', repo: r.repo, split: splitOf(q.id), long: isLong(q.query) });
          } finally {
            engine.close();
          }
        }
      }
    } finally {
      await trees.close();
    }
    process.stderr.write(`${r.repo}: ${queries.length} queries\n`);
  }
}

/** The NL slice: each repository's blanked tree indexed once (bench/.nlslice-cache/), then searched by every variant. */
async function runNl(mirrors: string, names: readonly string[], splitArg: string, only: string | undefined, byVariant: Runs): Promise<void> {
  const splitOfRepo = new Map(NL_REPOS.map((r) => [r.repo, r.split]));
  for (const entry of readManifest()) {
    const split = splitOfRepo.get(entry.repo) ?? entry.split;
    if ((only && entry.repo !== only) || (splitArg !== 'all' && split !== splitArg)) continue;
    const root = ensureNlTree(mirrors, entry);
    const db = join(nlCacheOf(entry.repo), 'lexical.db');
    const indexer = await createEngine({ root, db, env: {} });
    await indexer.index();
    indexer.close();
    const queries = readNlQueries(entry.repo);
    for (const name of names) {
      const engine = await createEngine({ root, db, env: {}, config: VARIANTS[name] });
      try {
        for (const q of queries) byVariant.get(name)!.push({ ...(await evalRow(engine, q)), set: 'nl', repo: entry.repo, split, long: false });
      } finally {
        engine.close();
      }
    }
    process.stderr.write(`nl ${entry.repo}: ${queries.length} queries\n`);
  }
}

async function main(): Promise<void> {
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const only = arg('--only');
  const names = arg('--variants')?.split(',') ?? Object.keys(VARIANTS);
  for (const n of names) if (!VARIANTS[n]) throw new Error(`unknown variant ${n}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const splitArg = arg('--split') ?? 'all';
  const sets = (arg('--sets') ?? 'devset').split(',');
  const byVariant: Runs = new Map<string, Row[]>(names.map((n) => [n, []]));
  if (sets.includes('devset')) await runDevset(mirrors, names, splitArg, only, byVariant);
  if (sets.includes('nl')) await runNl(mirrors, names, splitArg, only, byVariant);
  const parts: string[] = [];
  for (const split of ['tune', 'held-out'] as const) {
    if (splitArg !== 'all' && splitArg !== split) continue;
    if (sets.includes('devset')) {
      parts.push(table(`\n== ${split}: commit messages (devset), all`, byVariant, (q) => q.set === 'devset' && q.split === split));
      parts.push(table(`-- ${split}: devset long (issue-like)`, byVariant, (q) => q.set === 'devset' && q.split === split && q.long));
      parts.push(table(`-- ${split}: devset short`, byVariant, (q) => q.set === 'devset' && q.split === split && !q.long));
    }
    if (sets.includes('nl')) parts.push(table(`\n== ${split}: doc-comment queries (nl slice)`, byVariant, (q) => q.set === 'nl' && q.split === split));
  }
  process.stdout.write(`${parts.join('\n')}\n`);
  if (process.argv.includes('--misses')) {
    const first = byVariant.get(names[names.length - 1]!)!;
    for (const q of first.filter((x) => !x.accAt[5] && (splitArg !== 'all' || x.split === 'tune'))) process.stdout.write(`MISS ${q.repo} ${q.id} "${q.query.split('\n')[0]!.slice(0, 80)}" want ${q.expected.join(',')} got ${q.top.slice(0, 5).join(',')}\n`);
  }
  writeResult('devset', { sets, variants: names, rows: Object.fromEntries([...byVariant].map(([n, rows]) => [n, rows])) });
}

await main();
