import { readFileSync, statSync } from 'node:fs';
import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import { EngineError } from '../core/errors.js';
import { contentHash } from '../core/hash.js';
import { decodeText } from '../discover/decode.js';
import { redactTokenLiterals } from '../discover/secret-content.js';
import type { WalkOptions } from '../discover/walk.js';
import { writeAllOrNothing, type FileWrite, type WriteFs } from './atomic-write.js';
import { withSuggestions } from './files.js';
import { guardPath, refuseSecretContent } from './path-guard.js';
import { applyTextEdits, type TextEdit } from './text-edits.js';
import { applyUnifiedDiff, type FileChange, type FileStatus, type TextSource } from './unified-diff.js';

/** A change to the workspace: a unified diff (any number of files) or edits to one file. */
export type ChangeRequest =
  | { readonly kind: 'diff'; readonly diff: string }
  | { readonly kind: 'edits'; readonly path: string; readonly edits: readonly TextEdit[] };

/** One file of a change. */
export interface ChangedFile {
  /** Root-relative, `/`-separated. */
  readonly path: string;
  readonly status: FileStatus;
  /** Lines added and removed. */
  readonly additions: number;
  readonly deletions: number;
}

/** A validated change, not applied: what a user is asked to confirm. */
export interface ProposedChange {
  /**
   * sha256 (hex) of the canonical diff: what a confirmation token can be bound to. It is the hash
   * of `diff` itself unless the diff shows token literals, which `diff` redacts.
   */
  readonly hash: string;
  /**
   * The change as a canonical git-style unified diff (`diff --git a/PATH b/PATH`, three lines of
   * context), computed from the files' text before and after, whatever form the request took;
   * token literals in it are shown as `«redacted:<rule>»` (as `read_file` shows them).
   */
  readonly diff: string;
  readonly files: readonly ChangedFile[];
}

/** A change written to disk. */
export interface AppliedChange extends ProposedChange {
  /** Files re-checked by the scoped index pass that followed (0 when there is no index yet). */
  readonly reindexed: number;
  /** Why the follow-up index pass failed, when it did; the files were written all the same. */
  readonly reindexError?: string;
}

/** A change ready to write: the proposal, the writes, and the paths to re-index afterwards. */
export interface PreparedChange {
  readonly proposal: ProposedChange;
  readonly writes: readonly FileWrite[];
  /** Root-relative paths whose index entries the write makes stale. */
  readonly paths: readonly string[];
}

interface DiskFile {
  readonly abs: string;
  readonly bytes?: Buffer;
  readonly bom?: boolean;
  readonly mode?: number;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Reads the workspace through the path guard: every path must be inside the root, and a file the
 * index would take (no secrets, build output or ignored files); only UTF-8 text can be changed.
 */
class DiskSource implements TextSource {
  readonly files = new Map<string, DiskFile>();

  constructor(
    private readonly walk: WalkOptions,
    private readonly knownPaths: () => readonly string[],
  ) {}

  resolve(path: string, options: { allowMissing: boolean }): { rel: string; exists: boolean } {
    const g = withSuggestions(() => guardPath(this.walk, path, { allowMissing: options.allowMissing }), this.knownPaths);
    // a link inside the root and its target are one file: two writes to it would not be atomic
    const twin = [...this.files].find(([rel, f]) => f.abs === g.abs && rel !== g.rel);
    if (twin) throw new EngineError('PATCH_INVALID', { reason: `${g.rel} and ${twin[0]} are the same file (one links to the other); change it under one name`, path: g.rel });
    this.files.set(g.rel, { abs: g.abs });
    return { rel: g.rel, exists: g.exists };
  }

  read(rel: string): string {
    const abs = this.files.get(rel)!.abs;
    let bytes: Buffer;
    let mode: number;
    try {
      bytes = readFileSync(abs);
      mode = statSync(abs).mode & 0o7777;
    } catch (err) {
      throw new EngineError('IO_ERROR', { path: rel, reason: (err as Error).message });
    }
    const decoded = decodeText(bytes);
    if (!decoded.ok && decoded.reason === 'binary') throw new EngineError('PATH_DENIED', { path: rel, reason: 'it is a binary file' });
    if (decoded.ok && decoded.encoding !== 'utf-8') throw new EngineError('PATCH_CONFLICT', { path: rel, reason: `it is encoded as ${decoded.encoding}; only UTF-8 files can be changed` });
    const bom = bytes.subarray(0, 3).equals(BOM);
    const text = decoded.ok ? decoded.text : new TextDecoder('utf-8').decode(bytes);
    if (!encode(text, bom).equals(bytes)) throw new EngineError('PATCH_CONFLICT', { path: rel, reason: 'it is not valid UTF-8, so rewriting it would change bytes the change does not touch' });
    refuseSecretContent(rel, text);
    this.files.set(rel, { abs, bytes, bom, mode });
    return text;
  }
}

function encode(text: string, bom: boolean | undefined): Buffer {
  const body = Buffer.from(text, 'utf8');
  return bom ? Buffer.concat([BOM, body]) : body;
}

/**
 * Validates `request` against the files as they are now and computes the result in memory.
 * Writes nothing. Throws PATCH_INVALID, PATCH_CONFLICT, PATH_OUTSIDE_ROOT, PATH_DENIED,
 * FILE_NOT_FOUND (with "did you mean" paths from `knownPaths`) or TOO_LARGE.
 */
export function prepareChange(walk: WalkOptions, request: ChangeRequest, knownPaths: () => readonly string[] = () => []): PreparedChange {
  const source = new DiskSource(walk, knownPaths);
  const changes = computeChanges(request, source).filter((c) => c.status !== 'modified' || c.after !== c.before);
  if (changes.length === 0) throw new EngineError('PATCH_INVALID', { reason: 'the change leaves every file as it is' });
  const writes = changes.map((c): FileWrite => {
    const file = source.files.get(c.path)!;
    const content = c.status === 'deleted' ? null : encode(c.after, file.bom);
    if (content && content.length > walk.maxFileBytes) throw new EngineError('TOO_LARGE', { what: `${c.path} after the change`, size: content.length, unit: 'bytes', limit: walk.maxFileBytes });
    return { rel: c.path, abs: file.abs, expected: file.bytes ?? null, content, mode: file.mode };
  });
  const modes = new Map([...source.files].map(([rel, f]) => [rel, f.mode]));
  return { proposal: propose(changes, modes), writes, paths: changes.map((c) => c.path) };
}

function computeChanges(request: ChangeRequest, source: DiskSource): FileChange[] {
  if (typeof request !== 'object' || request === null) throw new EngineError('INVALID_ARGUMENT', { name: 'request', reason: "must be { kind: 'diff', diff } or { kind: 'edits', path, edits }" });
  if (request.kind === 'diff') return applyUnifiedDiff(request.diff, source);
  if (request.kind === 'edits') {
    if (typeof request.path !== 'string') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'must be a path relative to the project root' });
    const target = source.resolve(request.path, { allowMissing: false });
    const before = source.read(target.rel);
    return [{ path: target.rel, status: 'modified', before, after: applyTextEdits(target.rel, before, request.edits) }];
  }
  throw new EngineError('INVALID_ARGUMENT', { name: 'kind', reason: "must be 'diff' or 'edits'" });
}

/**
 * The most changed lines (added plus removed) a file's diff is computed for with Myers' algorithm,
 * which costs O(lines × changes): past it, the file's change is shown as one hunk replacing
 * everything between its first and last differing lines. A count, not a timeout, so the same
 * change always gets the same diff and hash.
 */
export const MAX_DIFF_EDIT_LENGTH = 1000;

/** The canonical diff (what `git diff` would print, without `index` lines), its hash and per-file counts. */
export function propose(changes: readonly FileChange[], modes: ReadonlyMap<string, number | undefined> = new Map(), maxEditLength = MAX_DIFF_EDIT_LENGTH): ProposedChange {
  const gitMode = (rel: string): string => ((modes.get(rel) ?? 0) & 0o111 ? '100755' : '100644');
  const patches = changes.map((c): StructuredPatch => {
    const oldName = c.status === 'added' ? '/dev/null' : `a/${c.path}`;
    const newName = c.status === 'deleted' ? '/dev/null' : `b/${c.path}`;
    const p = structuredPatch(oldName, newName, c.before, c.after, undefined, undefined, { context: CONTEXT_LINES, maxEditLength }) ?? replacementPatch(oldName, newName, c.before, c.after);
    return {
      ...p,
      isGit: true,
      ...(c.status === 'added' ? { isCreate: true, newMode: '100644' } : {}),
      ...(c.status === 'deleted' ? { isDelete: true, oldMode: gitMode(c.path) } : {}),
    };
  });
  // one section after another, no blank line between them (formatPatch of a list adds one)
  const diff = patches.map((p) => formatPatch(p)).join('');
  const files = changes.map((c, i): ChangedFile => {
    let additions = 0;
    let deletions = 0;
    for (const h of patches[i]!.hunks) {
      for (const l of h.lines) {
        if (l[0] === '+') additions++;
        else if (l[0] === '-') deletions++;
      }
    }
    return { path: c.path, status: c.status, additions, deletions };
  });
  // the hash names the real change; what is shown has token literals redacted, as read_file shows them
  return { hash: contentHash(diff), diff: redactTokenLiterals(diff), files };
}

const CONTEXT_LINES = 3;

/** Lines with their terminators; the last one may lack its `\n`. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * One hunk replacing everything between the lines the two texts share at their start and end,
 * with the usual context and `\ No newline at end of file` markers. Linear time.
 */
function replacementPatch(oldFileName: string, newFileName: string, before: string, after: string): StructuredPatch {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const lead = Math.min(CONTEXT_LINES, head);
  const trail = Math.min(CONTEXT_LINES, tail);
  const lines: string[] = [];
  const push = (op: string, line: string): void => {
    if (line.endsWith('\n')) lines.push(op + line.slice(0, -1));
    else lines.push(op + line, '\\ No newline at end of file');
  };
  for (const l of a.slice(head - lead, head)) push(' ', l);
  for (const l of a.slice(head, a.length - tail)) push('-', l);
  for (const l of b.slice(head, b.length - tail)) push('+', l);
  for (const l of a.slice(a.length - tail, a.length - tail + trail)) push(' ', l);
  const start = head - lead + 1;
  const hunk = { oldStart: start, oldLines: a.length - head - tail + lead + trail, newStart: start, newLines: b.length - head - tail + lead + trail, lines };
  return { oldFileName, newFileName, oldHeader: undefined, newHeader: undefined, hunks: [hunk] };
}

/** The error a change without a token gets: the proposal rides along in its data. */
export function confirmationRequired(proposal: ProposedChange): EngineError {
  return new EngineError('CONFIRMATION_REQUIRED', { hash: proposal.hash, diff: proposal.diff, files: proposal.files });
}

/** Writes a prepared change all-or-nothing (see `writeAllOrNothing`). */
export function commitChange(prepared: PreparedChange, io?: WriteFs): void {
  writeAllOrNothing(prepared.writes, io);
}
