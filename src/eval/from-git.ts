import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { createEngine, EngineError, type Engine, type FileOutline } from '../index.js';
import { git } from './git.js';
import type { GoldTarget } from './metrics.js';
import { changedLines, mineCommits, type CandidateCommit } from './mine-git.js';
import type { EvalQuery } from './queries-file.js';
import { evalOne, report, type EvalQueryResult, type EvalReport } from './run-eval.js';

export interface GitEvalOptions {
  /** Queries to mine, newest commits first. Range 1–1000; default 50. */
  readonly commits?: number | undefined;
  /** Only commits after this date (`git log --since`). */
  readonly since?: string | undefined;
  /**
   * Search the current index instead of the tree at each commit's parent, with gold files that
   * still exist: much faster, but an approximation (the answer may have moved since).
   */
  readonly fast?: boolean | undefined;
  readonly onQuery?: ((done: number, total: number) => void) | undefined;
}

/** Source files a commit modified make a query when there are this many. */
const MIN_GOLD = 1;
const MAX_GOLD = 5;
const FUNCTION_KINDS = new Set(['function', 'method']);

/** The commit's modified source files (code, not tests) as known to `engine`, or undefined when not 1–5. */
async function goldFiles(engine: Engine, commit: CandidateCommit): Promise<FileOutline[] | undefined> {
  const out: FileOutline[] = [];
  for (const path of commit.modified) {
    const outline = await engine.outline(path).catch(() => undefined);
    if (outline && outline.contentType === 'code' && !outline.isTest) out.push(outline);
  }
  return out.length >= MIN_GOLD && out.length <= MAX_GOLD ? out : undefined;
}

/**
 * Gold of one commit: each modified source file, plus the functions its hunks touch (the
 * innermost function or method overlapping each changed line range, in the version searched).
 */
export function goldTargets(files: readonly FileOutline[], hunks: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>): GoldTarget[] {
  const out: GoldTarget[] = [];
  for (const f of files) {
    const spans = new Map<string, GoldTarget>();
    for (const [a, b] of hunks.get(f.path) ?? []) {
      const inner = f.symbols
        .filter((s) => FUNCTION_KINDS.has(s.kind) && s.startLine <= b && a <= s.endLine)
        .sort((x, y) => x.endLine - x.startLine - (y.endLine - y.startLine))[0];
      if (inner) spans.set(`${inner.startLine}`, { path: f.path, startLine: inner.startLine, endLine: inner.endLine });
    }
    if (spans.size > 0) out.push(...spans.values());
    else out.push({ path: f.path });
  }
  return out;
}

/**
 * Worktrees an earlier run left behind (killed before its cleanup): removed before a new run, so
 * they do not pile up in `git worktree list`.
 */
async function removeStaleWorktrees(root: string): Promise<void> {
  const list = await git(['worktree', 'list', '--porcelain'], root).catch(() => '');
  // git lists real paths; the temp dir may be reached through a symlink
  const prefix = join(await realpath(tmpdir()), 'scry-eval-');
  for (const line of list.split('\n')) {
    const path = line.startsWith('worktree ') ? line.slice('worktree '.length) : '';
    if (path.startsWith(prefix) && path.endsWith(`${sep}tree`)) await git(['worktree', 'remove', '--force', path], root).catch(() => undefined);
  }
  await git(['worktree', 'prune'], root).catch(() => undefined);
}

function toQuery(commit: CandidateCommit, gold: GoldTarget[]): EvalQuery {
  return { id: commit.sha.slice(0, 10), query: commit.message, expected: gold };
}

/**
 * `scry eval --from-git`: queries mined from the repository's own history (see mine-git.ts),
 * each searched against the tree at the commit's parent — one git worktree, checked out commit
 * after commit and re-indexed incrementally, so only files that differ are parsed again — or,
 * with `fast`, against the current index.
 */
export async function evalFromGit(engine: Engine, options: GitEvalOptions = {}): Promise<EvalReport> {
  const wanted = options.commits ?? 50;
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > 1000) throw new EngineError('INVALID_ARGUMENT', { name: '--commits', reason: 'must be an integer from 1 to 1000' });
  await git(['rev-parse', '--git-dir'], engine.root).catch(() => {
    throw new EngineError('INVALID_ARGUMENT', { name: '--from-git', reason: `${engine.root} is not inside a git repository` });
  });
  const candidates = await mineCommits(engine.root, { commits: wanted, since: options.since });
  const results: EvalQueryResult[] = [];
  if (options.fast) {
    for (const c of candidates) {
      if (results.length >= wanted) break;
      const files = await goldFiles(engine, c);
      if (!files) continue;
      const hunks = await changedLines(engine.root, c, files.map((f) => f.path));
      results.push(await evalOne(engine, toQuery(c, goldTargets(files, hunks))));
      options.onQuery?.(results.length, wanted);
    }
    return report(engine.root, results);
  }
  await removeStaleWorktrees(engine.root);
  const tmp = await mkdtemp(join(tmpdir(), 'scry-eval-'));
  const tree = join(tmp, 'tree');
  let parentEngine: Engine | undefined;
  try {
    for (const c of candidates) {
      if (results.length >= wanted) break;
      if (!parentEngine) {
        await git(['worktree', 'add', '--detach', '--force', tree, c.parent], engine.root);
        parentEngine = await createEngine({ root: tree, db: join(tmp, 'index.db') });
      } else {
        await git(['checkout', '--detach', '--force', '--quiet', c.parent], tree);
      }
      await parentEngine.index();
      const files = await goldFiles(parentEngine, c);
      if (!files) continue;
      const hunks = await changedLines(engine.root, c, files.map((f) => f.path));
      results.push(await evalOne(parentEngine, toQuery(c, goldTargets(files, hunks))));
      options.onQuery?.(results.length, wanted);
    }
  } finally {
    parentEngine?.close();
    await git(['worktree', 'remove', '--force', tree], engine.root).catch(() => undefined);
    await rm(tmp, { recursive: true, force: true });
    await git(['worktree', 'prune'], engine.root).catch(() => undefined);
  }
  return report(engine.root, results);
}
