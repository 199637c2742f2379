/**
 * Mines the development benchmark (bench/devset/) from the history of public repositories, with
 * the same miner as `scry eval --from-git --export`: informative non-merge commits modifying 1–5
 * source files; the query is the commit message, the gold the modified source files and the
 * functions their hunks touch, located in the tree at the parent commit.
 *
 *   npx tsx bench/mine-devset.ts [--mirrors DIR] [--only owner/name,...] [--per-repo N] [--stats-only]
 *   npx tsx bench/mine-devset.ts --issues N [--only ...]   issue-like commits only (kindOf), added to the file until it holds up to N
 *   npx tsx bench/mine-devset.ts --set large --issues N [--only ...]   the large group's issue kind (bench/largeset/issue/),
 *                                  reading each repository's `scan` newest commits; each query records its pull request (`source`)
 *
 * Repositories come from local git mirrors at `<mirrors>/<owner>+<name>/repo` (default
 * /work/.mirror, where the workplace's snapshot fetcher puts them); their code is read, never
 * copied: only the mined queries (message, paths, line spans, commit ids) are written, one JSONL
 * file per repository, plus bench/devset/STATS.md and stats.json (regenerated from all files).
 * The held-out repositories (sympy, pytest, sphinx, astropy, requests, pylint, xarray, seaborn,
 * flask, django, scikit-learn, matplotlib, typeorm, eslint, rxjs) are refused.
 * Each parent's index is cached under bench/.devset-cache/ for bench/run-devset.ts.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../src/index.js';
import { exportFromGit } from '../src/eval/from-git.js';
import { git } from '../src/eval/git.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { BENCH_REPOS, isHeldOutName, LARGE_CACHE, LARGE_DIR, LARGE_REPOS, splitOfRepo, type BenchRepo, type LargeRepo, type Split } from './bench-repos.js';
import { median } from './stats.js';

/** Every benchmark repository mines commit and issue-like queries. */
export const DEV_REPOS: readonly BenchRepo[] = BENCH_REPOS;

export const DEVSET_DIR = join(import.meta.dirname, 'devset');
export const CACHE_DIR = join(import.meta.dirname, '.devset-cache');

/** A set of commit-mined queries: its repositories, where its query files are, where the per-commit indexes go. */
export interface DevSet {
  readonly name: string;
  readonly repos: ReadonlyArray<BenchRepo & Partial<Pick<LargeRepo, 'scan'>>>;
  readonly dir: string;
  readonly cache: string;
}

/** The development benchmark's commit and issue-like kinds. */
export const DEV_SET: DevSet = { name: 'devset', repos: DEV_REPOS, dir: DEVSET_DIR, cache: CACHE_DIR };
/** The large-repository group's issue-like kind (bench/bench-repos.ts LARGE_REPOS). */
export const LARGE_ISSUE_SET: DevSet = { name: 'large', repos: LARGE_REPOS.filter((r) => r.kind === 'issue'), dir: join(LARGE_DIR, 'issue'), cache: join(LARGE_CACHE, 'issue') };

export const fileOf = (repo: string, set: DevSet = DEV_SET): string => join(set.dir, `${repo.replace('/', '__')}.jsonl`);
export const mirrorOf = (mirrors: string, repo: string): string => join(mirrors, repo.replace('/', '+'), 'repo');
export { splitOfRepo, type Split };
export const cacheOf = (repo: string, set: DevSet = DEV_SET): string => join(set.cache, repo.replace('/', '__'));

/** Where a mined query's text comes from: the pull request its squash-merged subject cites (`(#123)`), else the commit. */
export function sourceOf(repo: string, subject: string, sha: string): string {
  const pr = /\(#(\d+)\)\s*$/.exec(subject.split('\n')[0]!.trim());
  return pr ? `https://github.com/${repo}/pull/${pr[1]}` : `https://github.com/${repo}/commit/${sha}`;
}

/**
 * The kind of a mined commit query (issue 18): `issue` when the message's body (after the subject)
 * holds at least ISSUE_MIN_WORDS words of prose, once bullet items (squash-merge changelogs) and
 * lines that are only issue or PR references or links are dropped, and reads like a problem report (names a bug, error, failure, wrong or
 * unexpected behaviour...); `commit` otherwise. The query is the whole message either way; the
 * gold function is not removed from issue-like texts (real reports name functions too).
 */
export type DevKind = 'commit' | 'issue';
export const ISSUE_MIN_WORDS = 40;
const REF_LINE = /^\s*(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see|part of|follow[- ]up(?: on| to)?|related(?: to)?)\b[:\s]*)?(?:#\d+|https?:\/\/\S+|[\w.-]+\/[\w.-]+#\d+)[\s.,)]*$/i;
const PROBLEM = /\b(bug|fix|error|crash|fail|wrong|issue|incorrect|broke|regression|panic|exception|unexpected|should|instead|problem|cannot|can't|doesn't|didn't|not work)/i;

export function kindOf(message: string): DevKind {
  const body = message.split(/\n\s*\n/).slice(1).join('\n');
  const prose = body
    .split('\n')
    .filter((l) => l.trim() !== '' && !REF_LINE.test(l) && !/^\s*[*-]\s/.test(l))
    .join(' ');
  const words = prose.match(/[A-Za-z]{2,}/g)?.length ?? 0;
  return words >= ISSUE_MIN_WORDS && PROBLEM.test(message) ? 'issue' : 'commit';
}

/**
 * Does the query name one of its gold files (the file name without extension, as a word)? A real
 * bug report rarely knows where the fix lands; a commit message often does. Reported apart, not
 * dropped.
 */
export function namesGoldFile(query: string, gold: ReadonlyArray<{ readonly path: string }>): boolean {
  return gold.some((g) => {
    const stem = g.path.split('/').pop()!.replace(/\.[^.]+$/, '');
    return stem.length > 2 && new RegExp(`\\b${stem.replace(/[^\w]/g, '.')}\\b`, 'i').test(query);
  });
}

/** A query counts as long (issue-like) past 200 characters or over several lines, as the engine decides. */
export const isLong = (q: string): boolean => q.length > 200 || /\n/.test(q.trim());

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * Mines `perRepo` queries of `r` into its file. With `issuesOnly`, only issue-like commits are
 * mined (a deeper look into history) and added to the queries already in the file.
 */
async function mine(mirrors: string, r: DevSet['repos'][number], perRepo: number, issuesOnly = false, set: DevSet = DEV_SET): Promise<void> {
  if (isHeldOutName(r.repo)) throw new Error(`${r.repo} is held out`);
  const root = mirrorOf(mirrors, r.repo);
  if (!existsSync(root)) throw new Error(`no mirror at ${root}`);
  const head = (await git(['rev-parse', 'HEAD'], root)).trim();
  const engine = await createEngine({ root, db: join(cacheOf(r.repo, set), 'head.db') });
  const started = performance.now();
  const fileOfSet = (repo: string): string => fileOf(repo, set);
  try {
    const mined = await exportFromGit(engine, {
      commits: perRepo,
      scan: r.scan,
      cacheDir: cacheOf(r.repo, set),
      onQuery: (done, total) => process.stderr.write(`\r${r.repo}: ${done}/${total}   `),
      accept: issuesOnly ? (c) => kindOf(c.message) === 'issue' : undefined,
    });
    const before = issuesOnly && existsSync(fileOfSet(r.repo)) ? readFileSync(fileOfSet(r.repo), 'utf8').trim().split('\n') : [];
    const seen = new Set(before.map((l) => (JSON.parse(l) as { id: string }).id));
    // the large group records where each text comes from (the development benchmark's files predate it)
    const withSource = (q: (typeof mined)[number]): object => (set === DEV_SET ? q : { ...q, source: sourceOf(r.repo, q.query, q.sha) });
    const added = mined.filter((q) => !seen.has(q.id)).map((q) => JSON.stringify(withSource(q)));
    mkdirSync(set.dir, { recursive: true });
    writeFileSync(fileOfSet(r.repo), [...before, ...added].join('\n') + '\n');
    process.stderr.write(`\n${r.repo}: ${mined.length} queries from history up to ${head.slice(0, 10)} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    engine.close();
  }
}

/** `manifest.json` of a set other than the development benchmark's: per mined repository its licence, half, history read and queries. */
async function writeSetManifest(mirrors: string, set: DevSet): Promise<void> {
  const repos = [];
  for (const r of set.repos) {
    if (!existsSync(fileOf(r.repo, set))) continue;
    const qs = parseQueriesFile(readFileSync(fileOf(r.repo, set), 'utf8'), fileOf(r.repo, set));
    const head = (await git(['rev-parse', 'HEAD'], mirrorOf(mirrors, r.repo))).trim();
    repos.push({ ...r, head, queries: qs.length, withFunctionSpans: qs.filter((q) => q.expected.some((e) => e.startLine !== undefined)).length });
  }
  const total = repos.reduce((a, r) => a + r.queries, 0);
  writeFileSync(join(set.dir, 'manifest.json'), `${JSON.stringify({ total, repos }, null, 1)}\n`);
}

/** STATS.md and stats.json from every devset file. */
export function writeStats(): void {
  const rows = [];
  for (const f of readdirSync(DEVSET_DIR).filter((x) => x.endsWith('.jsonl')).sort()) {
    const repo = f.replace('.jsonl', '').replace('__', '/');
    const qs = parseQueriesFile(readFileSync(join(DEVSET_DIR, f), 'utf8'), f);
    const lang = DEV_REPOS.find((r) => r.repo === repo)?.language ?? '?';
    const issues = qs.filter((q) => kindOf(q.query) === 'issue').length;
    const files = qs.map((q) => new Set(q.expected.map((e) => e.path)).size);
    rows.push({
      repo,
      language: lang,
      split: splitOfRepo(repo),
      queries: qs.length,
      commitKind: qs.length - issues,
      issueKind: issues,
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
    commitKind: rows.reduce((a, r) => a + r.commitKind, 0),
    issueKind: rows.reduce((a, r) => a + r.issueKind, 0),
    long: rows.reduce((a, r) => a + r.long, 0),
    issueRefs: rows.reduce((a, r) => a + r.issueRefs, 0),
    multiFile: rows.reduce((a, r) => a + r.multiFile, 0),
    withFunctionSpans: rows.reduce((a, r) => a + r.withFunctionSpans, 0),
  };
  writeFileSync(join(DEVSET_DIR, 'stats.json'), `${JSON.stringify({ total, repos: rows }, null, 2)}\n`);
  const md = [
    '# Development benchmark: statistics',
    '',
    'Generated by `npx tsx bench/mine-devset.ts` (see bench/README.md "Development benchmark"). One JSONL query file per repository; `commit` is the parent commit searched, `sha` the commit mined. `commit`/`issue` are the two kinds the mined messages are split into (`kindOf`: issue-like when the body has 40+ words of prose describing a problem); `split` is the repository\'s fixed half (bench/bench-repos.ts).',
    '',
    '| repository | language | split | queries | commit | issue | over 200 chars or multi-line | cite #N (issue or PR) | median chars | gold files (mean) | multi-file | with function spans |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.repo} | ${r.language} | ${r.split} | ${r.queries} | ${r.commitKind} | ${r.issueKind} | ${r.long} | ${r.issueRefs} | ${r.medianQueryChars} | ${r.goldFilesMean} | ${r.multiFile} | ${r.withFunctionSpans} |`),
    `| **total** | | | **${total.queries}** | ${total.commitKind} | ${total.issueKind} | ${total.long} | ${total.issueRefs} | | | ${total.multiFile} | ${total.withFunctionSpans} |`,
    '',
  ];
  writeFileSync(join(DEVSET_DIR, 'STATS.md'), md.join('\n'));
}

async function main(): Promise<void> {
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const only = arg('--only')?.split(',');
  const perRepo = Number(arg('--per-repo') ?? 30);
  const issues = arg('--issues');
  const set = arg('--set') === 'large' ? LARGE_ISSUE_SET : DEV_SET;
  for (const r of process.argv.includes('--stats-only') ? [] : set.repos) {
    if (only && !only.includes(r.repo)) continue;
    await (issues ? mine(mirrors, r, Number(issues), true, set) : mine(mirrors, r, perRepo, false, set));
  }
  if (set !== DEV_SET) return writeSetManifest(mirrors, set);
  writeStats();
  process.stderr.write(readFileSync(join(DEVSET_DIR, 'STATS.md'), 'utf8'));
}

if (process.argv[1] === import.meta.filename) await main();
