/**
 * The files and lines a unified git diff changes (new-side line numbers), for task-aware
 * retrieval's `diff` step. Untrusted input: never throws, bounded.
 */

export interface DiffFile {
  /** As in the `+++ b/...` header, without the `b/` prefix. */
  readonly path: string;
  /** New-side lines added or next to a deletion, ascending, at most MAX_DIFF_LINES. */
  readonly lines: readonly number[];
}

export const MAX_DIFF_FILES = 200;
export const MAX_DIFF_LINES = 500;

/** Files a diff changes (deleted files left out: nothing is left to show), in diff order. */
export function parseDiff(diff: string): DiffFile[] {
  if (typeof diff !== 'string') return [];
  const out: { path: string; lines: number[] }[] = [];
  let file: { path: string; lines: number[] } | undefined;
  let line = 0;
  for (const raw of diff.split(/\r?\n/)) {
    const header = /^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$/.exec(raw);
    if (header) {
      file = header[1] === '/dev/null' || out.length >= MAX_DIFF_FILES ? undefined : { path: header[1]!, lines: [] };
      if (file) out.push(file);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (hunk) {
      line = Number(hunk[1]);
      continue;
    }
    if (file === undefined || line === 0 || raw.startsWith('--- ')) continue;
    const add = (n: number): void => {
      if (file!.lines.length < MAX_DIFF_LINES && file!.lines.at(-1) !== n) file!.lines.push(n);
    };
    if (raw.startsWith('+')) add(line++);
    else if (raw.startsWith('-')) add(Math.max(line, 1));
    else if (raw.startsWith(' ') || raw === '') line++;
  }
  return out.filter((f) => f.lines.length > 0);
}
