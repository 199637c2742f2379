import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EngineError } from '../../index.js';
import { evalAtCommits, evalFromGit, exportFromGit } from '../../eval/from-git.js';
import { parseQueriesFile } from '../../eval/queries-file.js';
import { runEval } from '../../eval/run-eval.js';
import { formatEval } from '../format-eval.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { progressBar } from '../progress-bar.js';
import { parseIntFlag } from '../flags.js';

export interface EvalFlags {
  db?: string;
  queries?: string;
  fromGit?: boolean;
  commits?: string;
  since?: string;
  fast?: boolean;
  export?: string;
  cache?: string;
  json?: boolean;
}

/** `scry eval --from-git`: queries mined from history, searched at each commit's parent (or, with --fast, in the current index). */
async function evalGit(io: CliIO, dir: string | undefined, flags: EvalFlags): Promise<number> {
  const commits = parseIntFlag(flags.commits, '--commits', 1000);
  // the repository is DIR or the current directory (its history is what is mined)
  const engine = await openEngine(io, { dir, db: flags.db, orCwd: true });
  try {
    if (flags.fast && !engine.isIndexed()) {
      if (!flags.json) io.err(`scry: no index yet for ${engine.root}; building it first...\n`);
      await engine.index();
    }
    const onQuery = flags.json || !io.stderrIsTTY ? undefined : (done: number, total: number): void => io.err(`\rscry: ${done}/${total} queries`);
    const cacheDir = flags.cache ? resolve(io.cwd, flags.cache) : undefined;
    if (flags.export) {
      const mined = await exportFromGit(engine, { commits, since: flags.since, fast: flags.fast, onQuery, cacheDir });
      if (onQuery) io.err('\n');
      const file = resolve(io.cwd, flags.export);
      await writeFile(file, mined.map((q) => JSON.stringify(q)).join('\n') + (mined.length > 0 ? '\n' : ''));
      io.out(flags.json ? `${JSON.stringify({ file, queries: mined.length })}\n` : `${mined.length} queries written to ${file}\n`);
      return 0;
    }
    const result = await evalFromGit(engine, { commits, since: flags.since, fast: flags.fast, onQuery, cacheDir });
    if (onQuery) io.err('\n');
    io.out(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatEval(result));
    return 0;
  } finally {
    engine.close();
  }
}

/** `scry eval`: scores the index of DIR on a hand-written query set, or on queries mined from git. */
export async function evalCommand(io: CliIO, dir: string | undefined, flags: EvalFlags): Promise<number> {
  if (flags.fromGit && flags.queries) throw new EngineError('INVALID_ARGUMENT', { name: '--queries', reason: 'use either --queries or --from-git' });
  if (flags.export && !flags.fromGit) throw new EngineError('INVALID_ARGUMENT', { name: '--export', reason: 'only with --from-git' });
  if (flags.fromGit) return evalGit(io, dir, flags);
  if (!flags.queries) throw new EngineError('INVALID_ARGUMENT', { name: '--queries', reason: 'a JSONL file of {"query", "expected": [{"path", "startLine"?, "endLine"?}]} is required (or --from-git)' });
  const file = resolve(io.cwd, flags.queries);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new EngineError('INVALID_ARGUMENT', { name: '--queries', reason: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
  }
  const queries = parseQueriesFile(text, flags.queries);
  const engine = await openEngine(io, { dir, db: flags.db });
  try {
    // queries pinned to commits are searched in those trees; the current index serves the rest
    const pinned = queries.filter((q) => q.commit !== undefined).length;
    if (pinned < queries.length && !engine.isIndexed()) {
      if (!flags.json) io.err(`scry: no index yet for ${engine.root}; building it first...\n`);
      const bar = await progressBar(io);
      await engine.index({ onProgress: bar.onProgress });
      bar.stop();
    }
    const onQuery = flags.json || !io.stderrIsTTY || pinned === 0 ? undefined : (done: number, total: number): void => io.err(`\rscry: ${done}/${total} queries`);
    const report = pinned > 0 ? await evalAtCommits(engine, queries, { cacheDir: flags.cache ? resolve(io.cwd, flags.cache) : undefined, onQuery }) : await runEval(engine, queries);
    if (onQuery) io.err('\n');
    io.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatEval(report));
    return 0;
  } finally {
    engine.close();
  }
}
