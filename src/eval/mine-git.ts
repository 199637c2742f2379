import { git } from './git.js';

/** A commit that may become an evaluation query: its message and the files it modified. */
export interface CandidateCommit {
  readonly sha: string;
  readonly parent: string;
  readonly subject: string;
  /** Subject and body, trailers (Signed-off-by, Co-authored-by...) removed. */
  readonly message: string;
  /** Paths modified (not added, deleted or renamed): they exist at the parent. */
  readonly modified: readonly string[];
}

export interface MineOptions {
  /** Commits to keep, newest first. Default 50. */
  readonly commits: number;
  /** Only commits after this date (anything `git log --since` accepts). */
  readonly since?: string | undefined;
  /** Commits of history read to find them; default max(200, 20 × commits). */
  readonly scan?: number | undefined;
}

/** Subjects of commits that say nothing about what the code does. */
const UNINFORMATIVE_RE =
  /^(?:bump\b|release\b|prepare (?:for )?release|v?\d+\.\d+(?:\.\d+)?\b|revert\b|merge\b|wip\b|chore\((?:release|deps?)\)|(?:fix(?:e[ds])? )?typos?\b|format(?:ting)?\b|lint\b|prettier\b|update (?:changelog|deps|dependencies|version|readme)\b|changelog\b|version\b)/i;
const TRAILER_RE = /^(?:signed-off-by|co-authored-by|reviewed-by|acked-by|change-id|cc):/i;
/** Fewer words than this in subject and body together: too little to search with. */
const MIN_WORDS = 4;
/** Modified files a commit may touch before it is too broad to have a clear answer. */
const MAX_MODIFIED = 10;

const RECORD = '\u001e';
const FIELD = '\u001f';

/** Is this message worth asking? Drops version bumps, releases, reverts, merges, typo and formatting commits, and messages under 4 words. */
export function isInformative(subject: string, body: string): boolean {
  if (UNINFORMATIVE_RE.test(subject.trim())) return false;
  const words = `${subject} ${body}`.match(/[\p{L}\p{N}_]{2,}/gu) ?? [];
  return words.length >= MIN_WORDS;
}

export function cleanMessage(subject: string, body: string): string {
  const kept = body
    .split('\n')
    .filter((l) => !TRAILER_RE.test(l.trim()))
    .join('\n')
    .trim();
  return kept ? `${subject.trim()}\n\n${kept}` : subject.trim();
}

/**
 * Parses `git log --no-merges --format=<RS>%H<US>%P<US>%s<US>%b<US> --name-status` output into
 * commits with their modified files.
 */
export function parseLog(out: string): CandidateCommit[] {
  const commits: CandidateCommit[] = [];
  for (const record of out.split(RECORD)) {
    if (!record.trim()) continue;
    const [sha, parents, subject, body, files] = record.split(FIELD);
    if (!sha || parents === undefined || subject === undefined) continue;
    const parent = parents.trim().split(' ')[0];
    if (!parent) continue; // a root commit has no tree to search before it
    const modified = (files ?? '')
      .split('\n')
      .map((l) => l.split('\t'))
      .filter((f) => f[0] === 'M' && f[1])
      .map((f) => f[1]!);
    commits.push({ sha: sha.trim(), parent, subject: subject.trim(), message: cleanMessage(subject, body ?? ''), modified });
  }
  return commits;
}

/**
 * Non-merge commits of the repository at `root`, newest first, that have an informative message
 * and modify between 1 and 10 files; the caller narrows the files to source code once it knows
 * their language (1–5 source files make a query).
 */
export async function mineCommits(root: string, options: MineOptions): Promise<CandidateCommit[]> {
  // look further back than asked: most commits are filtered out
  const scan = options.scan ?? Math.max(200, options.commits * 20);
  const args = ['log', '--no-merges', `-n${scan}`, `--format=${RECORD}%H${FIELD}%P${FIELD}%s${FIELD}%b${FIELD}`, '--name-status', '--no-renames'];
  if (options.since) args.push(`--since=${options.since}`);
  const out = await git(args, root);
  return parseLog(out).filter((c) => c.modified.length >= 1 && c.modified.length <= MAX_MODIFIED && isInformative(c.subject, c.message.slice(c.subject.length)));
}

/** Line ranges (1-based, inclusive, in the parent's version) each file's hunks changed. */
export function parseHunks(diff: string): Map<string, Array<[number, number]>> {
  const out = new Map<string, Array<[number, number]>>();
  let current: Array<[number, number]> | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('--- ')) {
      const path = line.slice(4).replace(/^a\//, '');
      current = path === '/dev/null' ? undefined : (out.get(path) ?? []);
      if (current) out.set(path, current);
      continue;
    }
    const m = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (m && current) {
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      // a pure insertion (count 0) is placed after line `start`: the code around it is what changed
      current.push(count === 0 ? [Math.max(1, start), Math.max(1, start)] : [start, start + count - 1]);
    }
  }
  return out;
}

/** The hunks of `sha` against its parent for these files, by path. */
export async function changedLines(root: string, commit: CandidateCommit, paths: readonly string[]): Promise<Map<string, Array<[number, number]>>> {
  if (paths.length === 0) return new Map();
  const out = await git(['diff', '-U0', '--no-color', '--no-ext-diff', '--no-renames', commit.parent, commit.sha, '--', ...paths], root);
  return parseHunks(out);
}
