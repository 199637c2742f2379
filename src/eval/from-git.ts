import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, realpath, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { createEngine, EngineError, type ConfigInput, type Engine, type FileOutline } from '../index.js';
import { git } from './git.js';
import type { GoldTarget } from './metrics.js';
import { changedLines, mineCommits, type CandidateCommit } from './mine-git.js';
import type { EvalQuery } from './queries-file.js';
import { evalModes, report, type EvalReport, type ModeResults } from './run-eval.js';

export interface GitEvalOptions {
  /** Queries to mine, newest commits first. Range 1–1000; default 50. */
  readonly commits?: number | undefined;
  /** Only commits after this date (`git log --since`). */
  readonly since?: string | undefined;
  /** Commits of history read to find them (`git log -n`); default max(200, 20 × commits). */
  readonly scan?: number | undefined;
  /**
   * Search the current index instead of the tree at each commit's parent, with gold files that
   * still exist: much faster, but an approximation (the answer may have moved since).
   */
  readonly fast?: boolean | undefined;
  readonly onQuery?: ((done: number, total: number) => void) | undefined;
  /** Keep each parent commit's index here (`<commit>.db`) and reuse it on later runs. */
  readonly cacheDir?: string | undefined;
  /** Only candidate commits this accepts become queries (checked before their tree is indexed). */
  readonly accept?: ((commit: CandidateCommit) => boolean) | undefined;
}

/** Source files a commit modified make a query when there are this many. */
const MIN_GOLD = 1;
const MAX_GOLD = 5;
const FUNCTION_KINDS = new Set(['function', 'method']);

/** Build scripts are code, but a question is rarely answered by one: they are not gold. */
const BUILD_LANGUAGES = new Set(['make', 'dockerfile', 'cmake']);

/** The commit's modified source files (code, not tests, not build scripts) as known to `engine`, or undefined when not 1–5. */
async function goldFiles(engine: Engine, commit: CandidateCommit): Promise<FileOutline[] | undefined> {
  const out: FileOutline[] = [];
  for (const path of commit.modified) {
    const outline = await engine.outline(path).catch(() => undefined);
    if (outline && outline.contentType === 'code' && !outline.isTest && !BUILD_LANGUAGES.has(outline.language)) out.push(outline);
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

function toQuery(commit: CandidateCommit, gold: GoldTarget[]): EvalQuery & { sha: string } {
  return { id: commit.sha.slice(0, 10), query: commit.message, expected: gold, commit: commit.parent, sha: commit.sha };
}

/**
 * The trees of past commits, each as an indexed engine: one git worktree, checked out commit after
 * commit and re-indexed incrementally (only files that differ are parsed again). With a cache
 * directory, the index of each commit is kept there as `<commit>.db` and reused by later runs, so
 * a second evaluation of the same set indexes nothing.
 */
export class CommitTrees {
  private tmp: string | undefined;
  private tree: string | undefined;
  private worktreeEngine: Engine | undefined;
  private cachedEngine: Engine | undefined;

  constructor(
    private readonly root: string,
    private readonly cacheDir?: string | undefined,
    /** Configuration of the indexes built (e.g. chunking options); a cache directory holds one configuration's. */
    private readonly config?: ConfigInput | undefined,
  ) {}

  /** An engine searching the tree at `commit`. Valid until the next call or close(). */
  async at(commit: string): Promise<Engine> {
    this.cachedEngine?.close();
    this.cachedEngine = undefined;
    const full = (await git(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], this.root).catch(() => '')).trim();
    if (!full) throw new EngineError('INVALID_ARGUMENT', { name: 'commit', reason: `${commit} is not a commit of ${this.root}` });
    const cached = this.cacheDir ? join(this.cacheDir, `${full}.db`) : undefined;
    if (cached && existsSync(cached)) {
      // built in a temporary worktree since removed: read (never indexed) with the repository as root
      const engine = await createEngine({ root: this.root, db: cached, reroot: true, config: this.config }).catch(() => undefined);
      if (engine?.isIndexed() && engine.status().featureVersionCurrent) return (this.cachedEngine = engine);
      engine?.close();
    }
    if (!this.tmp) {
      await removeStaleWorktrees(this.root);
      this.tmp = await mkdtemp(join(tmpdir(), 'scry-eval-'));
      this.tree = join(this.tmp, 'tree');
      await git(['worktree', 'add', '--detach', '--force', this.tree, full], this.root);
    } else {
      await git(['checkout', '--detach', '--force', '--quiet', full], this.tree!);
    }
    const db = join(this.tmp, 'index.db');
    this.worktreeEngine ??= await createEngine({ root: this.tree!, db, config: this.config });
    await this.worktreeEngine.index();
    if (!cached) return this.worktreeEngine;
    // closing checkpoints the write-ahead log, so the file copied is the whole index
    this.worktreeEngine.close();
    this.worktreeEngine = undefined;
    await mkdir(this.cacheDir!, { recursive: true });
    await copyFile(db, `${cached}.tmp`);
    // a write-ahead log left beside an earlier file of this name (an outdated index opened above,
    // or by another reader) would be replayed onto the new file and corrupt it: remove it first
    for (const suffix of ['-wal', '-shm']) await rm(`${cached}${suffix}`, { force: true });
    await rename(`${cached}.tmp`, cached);
    return (this.worktreeEngine = await createEngine({ root: this.tree!, db, config: this.config }));
  }

  async close(): Promise<void> {
    this.cachedEngine?.close();
    this.worktreeEngine?.close();
    this.cachedEngine = this.worktreeEngine = undefined;
    if (this.tree) await git(['worktree', 'remove', '--force', this.tree], this.root).catch(() => undefined);
    if (this.tmp) await rm(this.tmp, { recursive: true, force: true });
    if (this.tmp) await git(['worktree', 'prune'], this.root).catch(() => undefined);
    this.tmp = this.tree = undefined;
  }
}

async function requireGit(root: string): Promise<void> {
  await git(['rev-parse', '--git-dir'], root).catch(() => {
    throw new EngineError('INVALID_ARGUMENT', { name: '--from-git', reason: `${root} is not inside a git repository` });
  });
}

/**
 * Mines queries from history with their gold, located in the tree at each commit's parent (that is
 * where the functions a hunk touched are looked up), or, with `fast`, in the current index.
 * Calls `visit` with each query and the engine searching the tree it belongs to.
 */
async function forEachMined(engine: Engine, options: GitEvalOptions, visit: (q: EvalQuery & { sha: string }, tree: Engine) => Promise<void>): Promise<number> {
  const wanted = options.commits ?? 50;
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > 1000) throw new EngineError('INVALID_ARGUMENT', { name: '--commits', reason: 'must be an integer from 1 to 1000' });
  await requireGit(engine.root);
  const candidates = await mineCommits(engine.root, { commits: wanted, since: options.since, scan: options.scan });
  let done = 0;
  const trees = options.fast ? undefined : new CommitTrees(engine.root, options.cacheDir);
  try {
    for (const c of candidates) {
      if (done >= wanted) break;
      if (options.accept && !options.accept(c)) continue;
      const tree = trees ? await trees.at(c.parent) : engine;
      const files = await goldFiles(tree, c);
      if (!files) continue;
      const hunks = await changedLines(engine.root, c, files.map((f) => f.path));
      await visit(toQuery(c, goldTargets(files, hunks)), tree);
      done++;
      options.onQuery?.(done, wanted);
    }
  } finally {
    await trees?.close();
  }
  return done;
}

/**
 * `scry eval --from-git`: queries mined from the repository's own history (see mine-git.ts),
 * each searched against the tree at the commit's parent (see CommitTrees), or, with `fast`,
 * against the current index.
 */
export async function evalFromGit(engine: Engine, options: GitEvalOptions = {}): Promise<EvalReport> {
  const byMode: ModeResults = {};
  await forEachMined(engine, options, async (q, tree) => {
    await evalModes(tree, q, byMode);
  });
  return report(engine.root, byMode);
}

/**
 * `scry eval --from-git --export FILE`: the mined queries as a query file (one JSON object per
 * line, with `commit` set to the parent searched and `sha` to the commit mined), nothing searched.
 * Evaluate it later with `scry eval --queries FILE`.
 */
export async function exportFromGit(engine: Engine, options: GitEvalOptions = {}): Promise<Array<EvalQuery & { sha: string }>> {
  const out: Array<EvalQuery & { sha: string }> = [];
  await forEachMined(engine, options, async (q) => {
    out.push(q);
  });
  return out;
}

/** Queries by the commit they are pinned to (`''` for the unpinned), in first-seen order. */
export function groupByCommit(queries: readonly EvalQuery[]): Map<string, EvalQuery[]> {
  const out = new Map<string, EvalQuery[]>();
  for (const q of queries) {
    const key = q.commit ?? '';
    const group = out.get(key);
    if (group) group.push(q);
    else out.set(key, [q]);
  }
  return out;
}

/**
 * Evaluates queries pinned to commits (`commit` in the query file) in the tree at each commit, and
 * the others in `engine`'s index. Queries of one commit run together; the report keeps file order.
 */
export async function evalAtCommits(engine: Engine, queries: readonly EvalQuery[], options: { cacheDir?: string | undefined; onQuery?: ((done: number, total: number) => void) | undefined } = {}): Promise<EvalReport> {
  const results = new Map<EvalQuery, ModeResults>();
  const pinned = queries.some((q) => q.commit !== undefined);
  if (pinned) await requireGit(engine.root);
  const trees = pinned ? new CommitTrees(engine.root, options.cacheDir) : undefined;
  try {
    for (const [commit, group] of groupByCommit(queries)) {
      const tree = commit && trees ? await trees.at(commit) : engine;
      for (const q of group) {
        const one: ModeResults = {};
        await evalModes(tree, q, one);
        results.set(q, one);
        options.onQuery?.(results.size, queries.length);
      }
    }
  } finally {
    await trees?.close();
  }
  // back in file order, per mode
  const byMode: ModeResults = {};
  for (const q of queries) for (const [mode, [r]] of Object.entries(results.get(q)!)) (byMode[mode] ??= []).push(r!);
  return report(engine.root, byMode);
}
