/**
 * Mines the development benchmark (bench/devset/) from the history of public repositories, with
 * the same miner as `scry eval --from-git --export`: informative non-merge commits modifying 1–5
 * source files; the query is the commit message, the gold the modified source files and the
 * functions their hunks touch, located in the tree at the parent commit.
 *
 *   npx tsx bench/mine-devset.ts [--mirrors DIR] [--only owner/name] [--per-repo N]
 *
 * Repositories come from local git mirrors at `<mirrors>/<owner>+<name>/repo` (default
 * /work/.mirror, where the workplace's snapshot fetcher puts them); their code is read, never
 * copied: only the mined queries (message, paths, line spans, commit ids) are written, one JSONL
 * file per repository, plus bench/devset/STATS.md and stats.json (regenerated from all files).
 * The held-out repositories (sympy, pytest, sphinx, astropy, requests, pylint, xarray, seaborn,
 * flask, django, scikit-learn, matplotlib, typeorm, eslint, rxjs) are refused.
 * Each parent's index is cached under bench/.devset-cache/ for bench/run-devset.ts.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../src/index.js';
import { exportFromGit } from '../src/eval/from-git.js';
import { git } from '../src/eval/git.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { median } from './stats.js';

export interface DevRepo {
  readonly repo: string;
  readonly language: string;
}

/** Two repositories a language; none of them held out. */
export const DEV_REPOS: readonly DevRepo[] = [
  { repo: 'colinhacks/zod', language: 'typescript' },
  { repo: 'honojs/hono', language: 'typescript' },
  { repo: 'expressjs/express', language: 'javascript' },
  { repo: 'mochajs/mocha', language: 'javascript' },
  { repo: 'psf/black', language: 'python' },
  { repo: 'pallets/click', language: 'python' },
  { repo: 'spf13/cobra', language: 'go' },
  { repo: 'junegunn/fzf', language: 'go' },
  { repo: 'BurntSushi/ripgrep', language: 'rust' },
  { repo: 'sharkdp/fd', language: 'rust' },
  { repo: 'jhy/jsoup', language: 'java' },
  // google/gson was tried first: its snapshot lacks a large blob (a Maven tarball), so its trees cannot be checked out
  { repo: 'square/javapoet', language: 'java' },
];

export const HELD_OUT = ['sympy', 'pytest', 'sphinx', 'astropy', 'requests', 'pylint', 'xarray', 'seaborn', 'flask', 'django', 'scikit-learn', 'matplotlib', 'typeorm', 'eslint', 'rxjs'];

export const DEVSET_DIR = join(import.meta.dirname, 'devset');
export const CACHE_DIR = join(import.meta.dirname, '.devset-cache');

export const fileOf = (repo: string): string => join(DEVSET_DIR, `${repo.replace('/', '__')}.jsonl`);
export const mirrorOf = (mirrors: string, repo: string): string => join(mirrors, repo.replace('/', '+'), 'repo');
/** The halves of the devset, fixed by the query id (the mined sha): even first hex digit tunes, odd is held out. */
export type Split = 'tune' | 'held-out';
export const splitOf = (id: string): Split => (parseInt(id[0]!, 16) % 2 === 0 ? 'tune' : 'held-out');
export const cacheOf = (repo: string): string => join(CACHE_DIR, repo.replace('/', '__'));

/** A query counts as long (issue-like) past 200 characters or over several lines, as the engine decides. */
export const isLong = (q: string): boolean => q.length > 200 || /\n/.test(q.trim());

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function mine(mirrors: string, r: DevRepo, perRepo: number): Promise<void> {
  const name = r.repo.split('/')[1]!.toLowerCase();
  if (HELD_OUT.includes(name)) throw new Error(`${r.repo} is held out`);
  const root = mirrorOf(mirrors, r.repo);
  if (!existsSync(root)) throw new Error(`no mirror at ${root}`);
  const head = (await git(['rev-parse', 'HEAD'], root)).trim();
  const engine = await createEngine({ root, db: join(cacheOf(r.repo), 'head.db') });
  const started = performance.now();
  try {
    const mined = await exportFromGit(engine, {
      commits: perRepo,
      cacheDir: cacheOf(r.repo),
      onQuery: (done, total) => process.stderr.write(`\r${r.repo}: ${done}/${total}   `),
    });
    writeFileSync(fileOf(r.repo), mined.map((q) => JSON.stringify(q)).join('\n') + '\n');
    process.stderr.write(`\n${r.repo}: ${mined.length} queries from history up to ${head.slice(0, 10)} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    engine.close();
  }
}

/** STATS.md and stats.json from every devset file. */
export function writeStats(): void {
  const rows = [];
  for (const f of readdirSync(DEVSET_DIR).filter((x) => x.endsWith('.jsonl')).sort()) {
    const repo = f.replace('.jsonl', '').replace('__', '/');
    const qs = parseQueriesFile(readFileSync(join(DEVSET_DIR, f), 'utf8'), f);
    const lang = DEV_REPOS.find((r) => r.repo === repo)?.language ?? '?';
    const files = qs.map((q) => new Set(q.expected.map((e) => e.path)).size);
    rows.push({
      repo,
      language: lang,
      queries: qs.length,
      long: qs.filter((q) => isLong(q.query)).length,
      issueRefs: qs.filter((q) => /#\d+|\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#\d+/i.test(q.query)).length,
      medianQueryChars: median(qs.map((q) => q.query.length)),
      goldFilesMean: Math.round((files.reduce((a, b) => a + b, 0) / qs.length) * 100) / 100,
      multiFile: files.filter((n) => n > 1).length,
      withFunctionSpans: qs.filter((q) => q.expected.some((e) => e.startLine !== undefined)).length,
    });
  }
  const total = {
    queries: rows.reduce((a, r) => a + r.queries, 0),
    long: rows.reduce((a, r) => a + r.long, 0),
    issueRefs: rows.reduce((a, r) => a + r.issueRefs, 0),
    multiFile: rows.reduce((a, r) => a + r.multiFile, 0),
    withFunctionSpans: rows.reduce((a, r) => a + r.withFunctionSpans, 0),
  };
  writeFileSync(join(DEVSET_DIR, 'stats.json'), `${JSON.stringify({ total, repos: rows }, null, 2)}\n`);
  const md = [
    '# Development benchmark: statistics',
    '',
    'Generated by `npx tsx bench/mine-devset.ts` (see bench/README.md "Development benchmark"). One JSONL query file per repository; `commit` is the parent commit searched, `sha` the commit mined.',
    '',
    '| repository | language | queries | long (issue-like) | cite #N (issue or PR) | median chars | gold files (mean) | multi-file | with function spans |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.repo} | ${r.language} | ${r.queries} | ${r.long} | ${r.issueRefs} | ${r.medianQueryChars} | ${r.goldFilesMean} | ${r.multiFile} | ${r.withFunctionSpans} |`),
    `| **total** | | **${total.queries}** | ${total.long} | ${total.issueRefs} | | | ${total.multiFile} | ${total.withFunctionSpans} |`,
    '',
  ];
  writeFileSync(join(DEVSET_DIR, 'STATS.md'), md.join('\n'));
}

async function main(): Promise<void> {
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const only = arg('--only');
  const perRepo = Number(arg('--per-repo') ?? 30);
  for (const r of DEV_REPOS) {
    if (only && r.repo !== only) continue;
    await mine(mirrors, r, perRepo);
  }
  writeStats();
  process.stderr.write(readFileSync(join(DEVSET_DIR, 'STATS.md'), 'utf8'));
}

if (process.argv[1] === import.meta.filename) await main();
