import { applyPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { EngineError } from '../core/errors.js';

/**
 * Unified diffs from untrusted callers (agents), parsed with jsdiff and checked before anything
 * is applied. Decisions:
 * - `a/` and `b/` prefixes are stripped when both sides carry them (or `/dev/null`), as git writes them;
 * - `--- /dev/null` adds a file, `+++ /dev/null` deletes one (its hunks must remove every line);
 *   git's hunkless `new file mode` / `deleted file mode` sections add or delete an empty file;
 * - renames and copies (`rename from`/`to`, or different old and new names) and mode changes
 *   are refused: express a rename as a deletion plus an addition;
 * - a file named twice in one diff is refused: merge its hunks into one section;
 * - binary patches are refused;
 * - hunks apply exactly (fuzz 0), each at its header's line or at the nearest line where all of
 *   its context matches (like `git apply`); a file using only CRLF keeps CRLF when the diff uses LF.
 */

/** Diff text one call may carry, in UTF-8 bytes. */
export const MAX_DIFF_BYTES = 1_000_000;
/** Largest line number a hunk header may name. */
const MAX_LINE_NUMBER = 100_000_000;
const HUNK_HEADER_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export type FileStatus = 'modified' | 'added' | 'deleted';

/** One file's section of a diff: parsed and checked, its path not yet resolved against a root. */
export interface FilePatch {
  /** 1-based position among the diff's file sections, for messages. */
  readonly section: number;
  readonly status: FileStatus;
  /** The path as the diff names it, prefix stripped. */
  readonly path: string;
  readonly patch: StructuredPatch;
}

/** A file's text before and after a change. */
export interface FileChange {
  /** Root-relative, `/`-separated. */
  readonly path: string;
  readonly status: FileStatus;
  /** Empty for an added file. */
  readonly before: string;
  /** Empty for a deleted file. */
  readonly after: string;
}

/** How a diff sees the workspace: the engine passes the path guard and the disk, tests a map. */
export interface TextSource {
  /** Resolves a path named by the change; throws PATH_OUTSIDE_ROOT, PATH_DENIED, FILE_NOT_FOUND. */
  resolve(path: string, options: { allowMissing: boolean }): { readonly rel: string; readonly exists: boolean };
  /** The current text of a resolved, existing file; throws when it is not editable text. */
  read(rel: string): string;
}

/** Parses and checks every section of `diff`, or throws PATCH_INVALID (TOO_LARGE over 1 MB). */
export function parseUnifiedDiff(diff: string): FilePatch[] {
  if (typeof diff !== 'string') throw invalid('the diff must be a string');
  const bytes = Buffer.byteLength(diff, 'utf8');
  if (bytes > MAX_DIFF_BYTES) throw new EngineError('TOO_LARGE', { what: 'the diff', size: bytes, unit: 'bytes', limit: MAX_DIFF_BYTES });
  if (diff.trim() === '') throw invalid('the diff is empty');
  const lines = diff.split('\n');
  prescan(lines);
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(diff);
  } catch (err) {
    throw invalid(explainParseError(err instanceof Error ? err.message : String(err), lines));
  }
  const sections = parsed.filter((p) => p.hunks.length > 0 || p.isGit || p.oldFileName !== undefined || p.newFileName !== undefined);
  if (sections.length === 0) throw invalid('no file changes found: a diff names each file with `--- a/PATH` and `+++ b/PATH` lines, followed by `@@ -START,COUNT +START,COUNT @@` hunks');
  return sections.map((p, i) => checkSection(p, i + 1));
}

/**
 * Parses `diff`, resolves and reads each file through `source`, and applies the hunks in memory.
 * Nothing is written. Throws PATCH_INVALID, PATCH_CONFLICT (which file, which hunk, which line,
 * expected vs found) or whatever `source` throws for a path.
 */
export function applyUnifiedDiff(diff: string, source: TextSource): FileChange[] {
  const sections = parseUnifiedDiff(diff);
  const seen = new Map<string, number>();
  const out: FileChange[] = [];
  for (const file of sections) {
    const target = source.resolve(file.path, { allowMissing: file.status === 'added' });
    const first = seen.get(target.rel);
    if (first !== undefined) throw invalid(`${target.rel} is named twice (file sections ${first} and ${file.section}); put all of its hunks in one section`, { path: target.rel, section: file.section });
    seen.set(target.rel, file.section);
    if (file.status === 'added' && target.exists) {
      throw new EngineError('PATCH_CONFLICT', { path: target.rel, reason: 'the diff creates it (--- /dev/null) but it already exists; diff against its current text instead', section: file.section });
    }
    if (!target.exists && file.status !== 'added') throw new EngineError('FILE_NOT_FOUND', { path: target.rel });
    const before = target.exists ? source.read(target.rel) : '';
    const after = applyFilePatch(file, target.rel, before);
    if (file.status === 'deleted' && after !== '') {
      throw new EngineError('PATCH_CONFLICT', { path: target.rel, reason: `the diff deletes it (+++ /dev/null) but its hunks leave ${after.split('\n').length} line(s); a deletion must remove every line`, section: file.section });
    }
    out.push({ path: target.rel, status: file.status, before, after });
  }
  return out;
}

/** Applies one section's hunks to `before` exactly (fuzz 0), or throws PATCH_CONFLICT saying where and why. */
export function applyFilePatch(file: FilePatch, path: string, before: string): string {
  if (file.patch.hunks.length === 0) {
    if (file.status === 'deleted' && before !== '') throw new EngineError('PATCH_CONFLICT', { path, reason: 'the diff deletes an empty file (no hunks) but the file has content', section: file.section });
    return before;
  }
  const after = tryApply(before, file.patch);
  if (after === false) throw explainConflict(file, path, before);
  return after;
}

function tryApply(source: string, patch: StructuredPatch): string | false {
  try {
    return applyPatch(source, patch, { fuzzFactor: 0 });
  } catch {
    return false;
  }
}

function invalid(reason: string, data: Record<string, unknown> = {}): EngineError {
  return new EngineError('PATCH_INVALID', { reason, ...data });
}

/** Checks what jsdiff accepts silently: malformed or absurd hunk headers, binary patches. */
function prescan(lines: readonly string[]): void {
  lines.forEach((line, i) => {
    const at = `diff line ${i + 1}`;
    if (line.startsWith('@@')) {
      const m = HUNK_HEADER_RE.exec(line);
      if (!m) throw invalid(`${at}: malformed hunk header ${quote(line)}; write it as \`@@ -START,COUNT +START,COUNT @@\` (e.g. \`@@ -12,7 +12,8 @@\`)`, { line: i + 1 });
      if (m.slice(1).some((n) => n !== undefined && Number(n) > MAX_LINE_NUMBER)) throw invalid(`${at}: hunk header ${quote(line)} names a line past ${MAX_LINE_NUMBER}`, { line: i + 1 });
    } else if (/^GIT binary patch\r?$/.test(line) || /^Binary files .* differ\r?$/.test(line)) {
      throw invalid(`${at}: binary patches are not supported; only text files can be changed`, { line: i + 1 });
    }
  });
}

/** Rewrites jsdiff's parse errors (which cite diff lines) into what to fix. */
function explainParseError(message: string, lines: readonly string[]): string {
  const m = /^Hunk at line (\d+) (contained invalid line|has more lines than expected)|^(?:Added|Removed) line count did not match for hunk at line (\d+)/.exec(message);
  if (!m) return /^Missing "/.test(message) ? `${message}: each file needs both a \`--- a/PATH\` and a \`+++ b/PATH\` line` : `cannot parse the diff: ${message}`;
  const at = Number(m[1] ?? m[3]);
  const headerLine = lines[at - 1] ?? '';
  const header = HUNK_HEADER_RE.exec(headerLine);
  const hunk = `the hunk at diff line ${at} (${quote(headerLine)})`;
  const body = hunkBody(lines, at);
  const promised = header ? `${header[2] ?? 1} old and ${header[4] ?? 1} new lines` : 'its counts';
  const has = `${body.old} old and ${body.added} new lines (context lines count on both sides)`;
  if (m[2] === 'has more lines than expected') return `${hunk} has more lines than its header promises (${promised}); the body has ${has}`;
  const short = !header || body.old < Number(header[2] ?? 1) || body.added < Number(header[4] ?? 1);
  if (!m[2] && !short) return `${hunk} does not match its header's counts: it promises ${promised}, the body has ${has}`;
  if (body.stop === undefined || (body.stop === lines.length - 1 && lines[body.stop] === '')) return `${hunk} ends before its header's counts are met: it promises ${promised}, the body has ${has}`;
  const stopLine = lines[body.stop]!;
  if (/^(@@|diff |Index:|===)/.test(stopLine)) return `${hunk} has fewer lines than its header promises (${promised}; the body has ${has}), so it runs into diff line ${body.stop + 1}, ${quote(stopLine)}`;
  return `diff line ${body.stop + 1} in ${hunk} starts with neither " ", "+", "-" nor "\\": ${quote(stopLine)}; context lines start with a space (a blank context line is a single space)`;
}

/** The body of the hunk whose header is at diff line `headerLine` (1-based), read as jsdiff reads it: its counts and where it stops. */
function hunkBody(lines: readonly string[], headerLine: number): { old: number; added: number; stop: number | undefined } {
  let old = 0;
  let added = 0;
  for (let i = headerLine; i < lines.length; i++) {
    const line = lines[i]!;
    const c = line === '' && i !== lines.length - 1 ? ' ' : line[0];
    if (c === '-') old++;
    else if (c === '+') added++;
    else if (c === ' ') {
      old++;
      added++;
    } else if (c !== '\\') return { old, added, stop: i };
  }
  return { old, added, stop: undefined };
}

function checkSection(p: StructuredPatch, section: number): FilePatch {
  const where = `file section ${section}`;
  if (p.isBinary) throw invalid(`${where}: binary patches are not supported; only text files can be changed`, { section });
  if (p.isRename || p.isCopy) {
    throw invalid(`${where}: ${p.isRename ? 'renames' : 'copies'} are not supported (${p.oldFileName} → ${p.newFileName}); delete the old file (+++ /dev/null) and add the new one (--- /dev/null) instead`, { section });
  }
  if (p.oldFileName === undefined || p.newFileName === undefined) throw invalid(`${where}: hunks without \`--- a/PATH\` and \`+++ b/PATH\` lines naming the file`, { section });
  if (p.oldMode && p.newMode && p.oldMode !== p.newMode && !p.isCreate && !p.isDelete) throw invalid(`${where}: file mode changes (${p.oldMode} → ${p.newMode}) are not supported`, { section });
  const [oldPath, newPath] = stripPrefixes(p.isCreate ? '/dev/null' : p.oldFileName, p.isDelete ? '/dev/null' : p.newFileName);
  if (oldPath === null && newPath === null) throw invalid(`${where}: both file names are /dev/null`, { section });
  if (oldPath !== null && newPath !== null && oldPath !== newPath) {
    throw invalid(`${where}: the old and new names differ (${p.oldFileName} vs ${p.newFileName}); renames are not supported: name the same file on both lines, or delete one file and add the other`, { section });
  }
  const status: FileStatus = oldPath === null ? 'added' : newPath === null ? 'deleted' : 'modified';
  const path = (oldPath ?? newPath)!;
  if (path.trim() === '') throw invalid(`${where}: the file name is empty`, { section });
  checkHunks(p.hunks, status, `${where} (${path})`, section);
  return { section, status, path, patch: p };
}

/** `a/x` + `b/x` → `x`; git's prefixes are dropped only when both sides have them (or are /dev/null). */
function stripPrefixes(oldName: string, newName: string): [string | null, string | null] {
  const o = oldName === '/dev/null' ? null : oldName;
  const n = newName === '/dev/null' ? null : newName;
  const prefixed = (o === null || o.startsWith('a/')) && (n === null || n.startsWith('b/'));
  return prefixed ? [o && o.slice(2), n && n.slice(2)] : [o, n];
}

function checkHunks(hunks: readonly StructuredPatchHunk[], status: FileStatus, where: string, section: number): void {
  if (hunks.length === 0 && status === 'modified') throw invalid(`${where}: no hunks (\`@@ -START,COUNT +START,COUNT @@\` followed by the lines)`, { section });
  hunks.forEach((h, i) => {
    const label = `${where}, hunk ${i + 1} (${headerOf(h)})`;
    for (let j = 0; j + 1 < h.lines.length; j++) {
      if (h.lines[j]!.startsWith('--- ') && h.lines[j + 1]!.startsWith('+++ ')) {
        throw invalid(`${label}: its header's counts run into the next file's \`---\`/\`+++\` lines; fix the counts (context lines count on both sides)`, { section, hunk: i + 1 });
      }
    }
    const ops = new Set(h.lines.map((l) => l[0] ?? ' '));
    if (status === 'added' && (ops.has('-') || ops.has(' '))) throw invalid(`${label}: a new file (--- /dev/null) can only have added lines`, { section, hunk: i + 1 });
    if (status === 'deleted' && (ops.has('+') || ops.has(' '))) throw invalid(`${label}: a deleted file (+++ /dev/null) can only have removed lines`, { section, hunk: i + 1 });
    const prev = hunks[i - 1];
    if (prev && h.oldStart < prev.oldStart + prev.oldLines) {
      throw invalid(`${label} starts before hunk ${i} (${headerOf(prev)}) ends; hunks must be in file order and must not overlap`, { section, hunk: i + 1 });
    }
  });
}

function headerOf(h: StructuredPatchHunk): string {
  // jsdiff stores an empty side's start one higher than the header wrote it
  const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
  const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
  return `@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`;
}

const stripCr = (s: string): string => (s.endsWith('\r') ? s.slice(0, -1) : s);

/** The old side of a hunk (context and removed lines), without the `\ No newline` markers. */
function oldSide(h: StructuredPatchHunk): string[] {
  return h.lines.filter((l) => l[0] !== '+' && l[0] !== '\\').map((l) => l.slice(1));
}

function trailingContext(h: StructuredPatchHunk): number {
  let n = 0;
  for (let i = h.lines.length - 1; i >= 0; i--) {
    const c = h.lines[i]![0];
    if (c === '\\') continue;
    if (c !== ' ' && h.lines[i] !== '') break;
    n++;
  }
  return n;
}

/** The position nearest `from` (not before `min`) where `want` matches `lines`, as applyPatch searches. */
function locate(lines: readonly string[], want: readonly string[], from: number, min: number): number | undefined {
  const max = lines.length - want.length;
  const matches = (p: number): boolean => want.every((w, j) => stripCr(lines[p + j]!) === stripCr(w));
  for (let d = 0; from - d >= min || from + d <= max; d++) {
    if (from + d >= min && from + d <= max && matches(from + d)) return from + d;
    if (d > 0 && from - d >= min && from - d <= max && matches(from - d)) return from - d;
  }
  return undefined;
}

/**
 * Why `file` does not apply to `before`: the first hunk that fails, and within it the first line
 * whose expected text differs from the file where the hunk should go.
 */
function explainConflict(file: FilePatch, path: string, before: string): EngineError {
  const hunks = file.patch.hunks;
  // the first k hunks apply for every k below the failing one: binary search, O(log n) applies
  let failing = 0;
  for (let hi = hunks.length - 1; failing < hi; ) {
    const mid = (failing + hi) >> 1;
    if (tryApply(before, { ...file.patch, hunks: hunks.slice(0, mid + 1) }) === false) hi = mid;
    else failing = mid + 1;
  }
  const hunk = hunks[failing]!;
  const label = `hunk ${failing + 1} of ${hunks.length} (${headerOf(hunk)})`;
  const base = { path, section: file.section, hunk: failing + 1, header: headerOf(hunk) };
  const lines = before.split('\n');
  // the final '' after a trailing newline is where the file ends, not a line
  const lineCount = before.endsWith('\n') ? lines.length - 1 : lines.length;
  let offset = 0;
  let min = 0;
  for (let k = 0; k < failing; k++) {
    const h = hunks[k]!;
    const at = locate(lines, oldSide(h), h.oldStart - 1 + offset, min);
    if (at === undefined) break;
    offset = at - (h.oldStart - 1);
    min = at + oldSide(h).length - trailingContext(h);
  }
  const want = oldSide(hunk);
  const start = Math.max(hunk.oldStart - 1 + offset, min);
  for (let j = 0; j < want.length; j++) {
    const n = start + j;
    const found = n < lineCount ? lines[n]! : undefined;
    if (found !== undefined && stripCr(found) === stripCr(want[j]!)) continue;
    const elsewhere = lines.findIndex((l, i) => i < lineCount && stripCr(l) === stripCr(want[j]!));
    const where = elsewhere === -1 ? 'that text is nowhere in the file' : `that text is at line ${elsewhere + 1}`;
    const reason =
      found === undefined
        ? `${label} expects line ${n + 1} to be ${quote(want[j]!)}, but the file ends after line ${lineCount}; ${where}`
        : `${label} expects line ${n + 1} to be ${quote(want[j]!)}, but it is ${quote(found)}; ${where}`;
    return new EngineError('PATCH_CONFLICT', { ...base, reason, line: n + 1, expected: clip(want[j]!), found: found === undefined ? null : clip(found) });
  }
  if (want.some((w, j) => lines[start + j] !== w)) {
    return new EngineError('PATCH_CONFLICT', { ...base, reason: `${label} matches at line ${start + 1} except for line endings: the file mixes CRLF and LF, so the diff must reproduce each line's ending`, line: start + 1 });
  }
  const marker = hunk.lines.findIndex((l) => l.startsWith('\\'));
  if (failing === hunks.length - 1 && marker !== -1) {
    const endsWithNewline = before.endsWith('\n');
    const reason = `${label}: the diff's "\\ No newline at end of file" marker does not fit the file, which ${endsWithNewline ? 'ends with' : 'does not end with'} a newline`;
    return new EngineError('PATCH_CONFLICT', { ...base, reason, line: lineCount });
  }
  return new EngineError('PATCH_CONFLICT', { ...base, reason: `${label} does not fit after the previous hunk (they overlap or are out of order)`, line: start + 1 });
}

function clip(s: string, max = 500): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function quote(s: string): string {
  return JSON.stringify(clip(s, 160));
}
