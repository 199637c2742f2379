/**
 * Ranking quality on the development benchmark (bench/devset/, mined by bench/mine-devset.ts),
 * for several ranking configurations side by side, on the tuning half and the held-out half.
 *
 *   npx tsx bench/run-devset.ts [--mirrors DIR] [--only owner/name] [--variants a,b] [--split tune|held-out|all] [--misses]
 *
 * Every query is searched in the tree at its parent commit: the index of each commit is cached
 * under bench/.devset-cache/ (built on first use from a git worktree of the mirror, see
 * CommitTrees), so later runs only search. The halves are fixed by the query id (the mined
 * commit's sha): ids whose first hex digit is even tune, odd ones are held out. Tune on `tune`;
 * report on `held-out`.
 * Writes bench/results/devset.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createEngine, type ConfigInput } from '../src/index.js';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import { CUTOFFS, summarize, type EvalSummary } from '../src/eval/metrics.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { evalOne, type EvalQueryResult } from '../src/eval/run-eval.js';
import { cacheOf, DEV_REPOS, fileOf, isLong, mirrorOf, splitOf, type Split } from './mine-devset.js';
import { writeResult } from './results.js';

/** Ranking configurations compared; `default` is the shipped configuration. */
const ranking = (r: Record<string, unknown>): ConfigInput => ({ search: { ranking: r } }) as ConfigInput;

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
  /** The shipped configuration. */
  default: {},
};


function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Row extends EvalQueryResult {
  readonly repo: string;
  readonly split: Split;
  readonly long: boolean;
}

const f3 = (x: number): string => x.toFixed(3);

function table(title: string, byVariant: Map<string, Row[]>, pick: (r: Row) => boolean): string {
  const out = [title, `${'variant'.padEnd(22)}${'n'.padStart(5)}${CUTOFFS.map((k) => `Acc@${k}`.padStart(8)).join('')}${'MRR'.padStart(8)}${['fn@5', 'fn@10'].map((s) => s.padStart(8)).join('')}${'p50ms'.padStart(8)}${'p90ms'.padStart(8)}`];
  for (const [name, rows] of byVariant) {
    const sel = rows.filter(pick);
    const s: EvalSummary = summarize(sel, sel.map((r) => r.tookMs));
    out.push(`${name.padEnd(22)}${String(s.queries).padStart(5)}${CUTOFFS.map((k) => f3(s.accAt[k]!).padStart(8)).join('')}${f3(s.mrr).padStart(8)}${[5, 10].map((k) => (s.functionHitAt ? f3(s.functionHitAt[k]!) : '-').padStart(8)).join('')}${s.latencyMs.p50.toFixed(1).padStart(8)}${s.latencyMs.p90.toFixed(1).padStart(8)}`);
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const only = arg('--only');
  const names = arg('--variants')?.split(',') ?? Object.keys(VARIANTS);
  const splitArg = arg('--split') ?? 'all';
  const byVariant = new Map<string, Row[]>(names.map((n) => [n, []]));
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
            for (const q of group) byVariant.get(name)!.push({ ...(await evalOne(engine, q)), repo: r.repo, split: splitOf(q.id), long: isLong(q.query) });
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
  const parts: string[] = [];
  for (const split of ['tune', 'held-out'] as const) {
    if (splitArg !== 'all' && splitArg !== split) continue;
    parts.push(table(`\n== ${split}: all`, byVariant, (q) => q.split === split));
    parts.push(table(`-- ${split}: long (issue-like)`, byVariant, (q) => q.split === split && q.long));
    parts.push(table(`-- ${split}: short`, byVariant, (q) => q.split === split && !q.long));
  }
  process.stdout.write(`${parts.join('\n')}\n`);
  if (process.argv.includes('--misses')) {
    const first = byVariant.get(names[names.length - 1]!)!;
    for (const q of first.filter((x) => !x.accAt[5] && (splitArg !== 'all' || x.split === 'tune'))) process.stdout.write(`MISS ${q.repo} ${q.id} "${q.query.split('\n')[0]!.slice(0, 80)}" want ${q.expected.join(',')} got ${q.top.slice(0, 5).join(',')}\n`);
  }
  writeResult('devset', { variants: names, rows: Object.fromEntries([...byVariant].map(([n, rows]) => [n, rows])) });
}

await main();
