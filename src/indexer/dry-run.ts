import type { FileCandidate, SkipReason } from '../core/file.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { readCandidate } from '../discover/read.js';
import { walk } from '../discover/walk.js';

export interface DirectoryTotal {
  /** Top-level directory ('.' for files at the root). */
  readonly dir: string;
  readonly files: number;
  readonly bytes: number;
}

/** What `scry index --dry-run` shows: what would be indexed, and what would be left out and why. */
export interface DryRunReport {
  readonly root: string;
  readonly files: number;
  readonly bytes: number;
  readonly languages: Record<string, number>;
  /** Top directories by bytes, at most 15. */
  readonly topDirectories: readonly DirectoryTotal[];
  /** Files left out, by reason. */
  readonly skippedFiles: Partial<Record<SkipReason, number>>;
  /** Directories left out without being walked, by reason. */
  readonly skippedDirectories: Partial<Record<SkipReason, number>>;
  /** A few examples per reason, so users can check the rules (at most 5 each). */
  readonly examples: Partial<Record<SkipReason, string[]>>;
  /** Every file left out as a secret (at most 200), and why: `name` (the secrets list) or the content rule that matched. */
  readonly secrets: ReadonlyArray<{ readonly path: string; readonly why: string }>;
  /** Files that would be indexed with token literals redacted (at most 200), and the rules that matched. */
  readonly redacted: ReadonlyArray<{ readonly path: string; readonly rules: Readonly<Record<string, number>> }>;
  /** How many files would be indexed with redactions (all of them, not only those listed). */
  readonly redactedFiles: number;
}

const MAX_LISTED = 200;

/** Walks and reads exactly as an index pass would, and writes nothing. */
export function previewIndex(root: string, config: ResolvedConfig): DryRunReport {
  const candidates: FileCandidate[] = [];
  const skippedFiles: Partial<Record<SkipReason, number>> = {};
  const skippedDirectories: Partial<Record<SkipReason, number>> = {};
  const examples: Partial<Record<SkipReason, string[]>> = {};
  const secrets: Array<{ path: string; why: string }> = [];
  const redacted: Array<{ path: string; rules: Readonly<Record<string, number>> }> = [];
  let redactedFiles = 0;
  const note = (path: string, reason: SkipReason, rule = 'name'): void => {
    if (reason === 'secret' && secrets.length < MAX_LISTED) secrets.push({ path, why: rule });
    const bucket = path.endsWith('/') ? skippedDirectories : skippedFiles;
    bucket[reason] = (bucket[reason] ?? 0) + 1;
    const list = (examples[reason] ??= []);
    if (list.length < 5) list.push(path);
  };
  walk({ root, maxFileBytes: config.maxFileBytes, ignore: config.ignore, denylist: config.denylist }, {
    file: (c) => candidates.push(c),
    skip: (s) => note(s.path, s.reason),
  });
  const languages: Record<string, number> = {};
  const dirs = new Map<string, { files: number; bytes: number }>();
  let files = 0;
  let bytes = 0;
  for (const c of candidates) {
    const result = readCandidate(root, c, config.maxFileBytes);
    if (!result.ok) {
      note(c.path, result.reason, result.rule);
      continue;
    }
    if (Object.keys(result.redactions).length > 0) {
      redactedFiles++;
      if (redacted.length < MAX_LISTED) redacted.push({ path: c.path, rules: result.redactions });
    }
    files++;
    bytes += result.size;
    languages[result.language] = (languages[result.language] ?? 0) + 1;
    const slash = c.path.indexOf('/');
    const dir = slash === -1 ? '.' : c.path.slice(0, slash);
    const d = dirs.get(dir) ?? { files: 0, bytes: 0 };
    d.files++;
    d.bytes += result.size;
    dirs.set(dir, d);
  }
  const topDirectories = [...dirs.entries()]
    .map(([dir, d]) => ({ dir, ...d }))
    .sort((a, b) => b.bytes - a.bytes || a.dir.localeCompare(b.dir))
    .slice(0, 15);
  return { root, files, bytes, languages, topDirectories, skippedFiles, skippedDirectories, examples, secrets, redacted, redactedFiles };
}
