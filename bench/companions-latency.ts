/**
 * CPU of long issue texts with and without the companion step (issue 18, companions), in the same
 * run: the large group's tuning issue texts on their cached indexes, two engines per commit (the
 * shipped configuration, and it with `byKind.long.companionBoost`/`companionAnchors`), each text
 * searched once on each to warm up, then `--rounds` alternating A/B passes; process CPU per search
 * (user + system), p50/p95 and the B/A ratio.
 *
 *   npx tsx bench/companions-latency.ts [--rounds 3] [--boost 0.4] [--anchors 1] [--only owner/name]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupByCommit } from '../src/eval/from-git.js';
import { git } from '../src/eval/git.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { createEngine, type ConfigInput } from '../src/index.js';
import { splitOfRepo } from './bench-repos.js';
import { cacheOf, fileOf, kindOf, LARGE_ISSUE_SET, mirrorOf } from './mine-devset.js';
import { summarize } from './stats.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const cpuMs = (f: () => Promise<unknown>): Promise<number> => {
  const start = process.cpuUsage();
  return f().then(() => {
    const d = process.cpuUsage(start);
    return (d.user + d.system) / 1000;
  });
};

async function main(): Promise<void> {
  const rounds = Number(arg('--rounds') ?? 3);
  const long = { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1 };
  const configs: ConfigInput[] = [
    { search: { ranking: { byKind: { long } } } } as ConfigInput,
    { search: { ranking: { byKind: { long: { ...long, companionBoost: Number(arg('--boost') ?? 0.4), companionAnchors: Number(arg('--anchors') ?? 1) } } } } } as ConfigInput,
  ];
  const samples: [number[], number[]] = [[], []];
  for (const r of LARGE_ISSUE_SET.repos) {
    if (splitOfRepo(r.repo) !== 'tune' || (arg('--only') && arg('--only') !== r.repo)) continue;
    const file = fileOf(r.repo, LARGE_ISSUE_SET);
    const queries = parseQueriesFile(readFileSync(file, 'utf8'), file).filter((q) => kindOf(q.query) === 'issue');
    const root = mirrorOf('/work/.mirror', r.repo);
    for (const [commit, group] of groupByCommit(queries)) {
      const full = (await git(['rev-parse', `${commit}^{commit}`], root)).trim();
      const db = join(cacheOf(r.repo, LARGE_ISSUE_SET), `${full}.db`);
      if (!existsSync(db)) continue;
      const engines = await Promise.all(configs.map((config) => createEngine({ root, db, reroot: true, config })));
      try {
        for (const q of group) for (const e of engines) await e.search(q.query, { limit: 10 });
        for (let i = 0; i < rounds; i++) {
          for (const q of group) {
            // alternate which configuration goes first
            const order = i % 2 === 0 ? [0, 1] : [1, 0];
            for (const k of order) samples[k as 0 | 1].push(await cpuMs(() => engines[k]!.search(q.query, { limit: 10 })));
          }
        }
      } finally {
        for (const e of engines) e.close();
      }
    }
  }
  const [a, b] = samples.map(summarize);
  process.stdout.write(`searches per configuration: ${a!.n}\nshipped:    CPU p50 ${a!.p50} ms, p95 ${a!.p95} ms\ncompanions: CPU p50 ${b!.p50} ms, p95 ${b!.p95} ms\nratio p50 ${(b!.p50 / a!.p50).toFixed(3)}, p95 ${(b!.p95 / a!.p95).toFixed(3)}\n`);
}

await main();
