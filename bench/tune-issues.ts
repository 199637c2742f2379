/**
 * The issue-like queries of a development set's tuning half, each with an engine searching the tree
 * at its commit's parent (the cached indexes of run-devset.ts): the loop the long-text analyses
 * (long-misses.ts, long-pool.ts) share.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import { parseQueriesFile, type EvalQuery } from '../src/eval/queries-file.js';
import type { ConfigInput, Engine } from '../src/index.js';
import { splitOfRepo } from './bench-repos.js';
import { cacheOf, DEV_SET, fileOf, kindOf, LARGE_ISSUE_SET, mirrorOf, type DevSet } from './mine-devset.js';

/** `--sets devset` reads the development set, anything else the large group's issue set. */
export function issueSetOf(name: string | undefined): DevSet {
  return name === 'devset' ? DEV_SET : LARGE_ISSUE_SET;
}

/** Calls `visit` for each tuning-half issue-like query of `set` (of the repositories in `only`, when given). */
export async function forEachTuneIssue(
  set: DevSet,
  only: readonly string[] | undefined,
  config: ConfigInput | undefined,
  visit: (engine: Engine, q: EvalQuery, repo: string) => Promise<void>,
): Promise<void> {
  for (const r of set.repos) {
    if (splitOfRepo(r.repo) !== 'tune' || (only && !only.includes(r.repo))) continue;
    const file = fileOf(r.repo, set);
    if (!existsSync(file)) continue;
    const queries = parseQueriesFile(readFileSync(file, 'utf8'), file).filter((q) => kindOf(q.query) === 'issue');
    const trees = new CommitTrees(mirrorOf('/work/.mirror', r.repo), cacheOf(r.repo, set), config);
    try {
      for (const [commit, group] of groupByCommit(queries)) {
        const engine = await trees.at(commit);
        for (const q of group) await visit(engine, q, r.repo);
      }
    } finally {
      await trees.close();
    }
  }
}
