import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The last commit time of each file of a git work tree, ms since the epoch, by root-relative
 * path: one `git log` for the whole tree (newest commits first; a path's first appearance is its
 * last change). For content timestamps (issue 22) where a document carries no date of its own:
 * a fresh checkout gives every file the same mtime, the history does not. Runs only git itself,
 * read-only, never anything from the tree; no repository, no git, a timeout or more than
 * `maxCommits` commits of history to read → the dates found so far (possibly none).
 */
export function lastCommitDates(root: string, options: { timeoutMs?: number; maxCommits?: number } = {}): Map<string, number> {
  const dates = new Map<string, number>();
  if (!existsSync(join(root, '.git'))) return dates;
  const r = spawnSync('git', ['--no-optional-locks', '-C', root, 'log', `--max-count=${options.maxCommits ?? 20_000}`, '--format=%x00%ct', '--name-only', '--no-renames', '--relative', '-z'], {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 10_000,
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (typeof r.stdout !== 'string') return dates;
  // `-z` output: NUL, time, NUL, then the commit's paths (the first after a newline), each
  // NUL-terminated, then the next commit's NUL: a field right after an empty one is a time
  let current = 0;
  let afterEmpty = false;
  for (const field of r.stdout.split('\0')) {
    if (field === '') {
      afterEmpty = true;
      continue;
    }
    if (afterEmpty) {
      current = /^\d+$/.test(field) ? Number(field) * 1000 : 0;
      afterEmpty = false;
      continue;
    }
    const path = field.replace(/^\n/, '');
    if (current > 0 && !dates.has(path)) dates.set(path, current);
  }
  return dates;
}
