/**
 * The five sections of a context pack (seed 002 "Context pack structure"), as data and as the
 * YAML-like text a prompt carries. Each list entry renders to a self-contained fragment, so a
 * budget can price entries one at a time. Layout is fixed: keys in the order written here, empty
 * optional sections and keys left out.
 */
import { citation, type EvidenceGroup, type EvidencePiece } from './evidence-merge.js';
import { field, stringList } from './yaml-text.js';

/** What the agent is asked to do. Never dropped. */
export interface TaskSpec {
  /** The goal or full spec text. */
  readonly goal: string;
  readonly acceptanceCriteria?: readonly string[] | undefined;
  readonly constraints?: readonly string[] | undefined;
  /** Rules that always apply to this project (the "constitution"). */
  readonly constitution?: readonly string[] | undefined;
}

export interface Diagnostic {
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  readonly message: string;
  /** `error`, `warning`, ... as the producer names it. */
  readonly severity?: string | undefined;
  readonly code?: string | number | undefined;
}

export interface CurrentFile {
  readonly path: string;
  /** The whole file, or a slice of it around the cursor (see `firstLine`); the pack keeps a window of it. */
  readonly text: string;
  /** 1-based, in the whole file; the window is centred on it and always keeps it. Default: the first line of `text`. */
  readonly cursorLine?: number | undefined;
  /** The line number of `text`'s first line when `text` is a slice of a larger file. Default 1. */
  readonly firstLine?: number | undefined;
  /** Lines in the whole file when `text` is a slice. Default: the lines up to the end of `text`. */
  readonly totalLines?: number | undefined;
}

export interface WorkspaceInput {
  readonly currentFile?: CurrentFile | undefined;
  /** Never dropped. */
  readonly diagnostics?: readonly Diagnostic[] | undefined;
  readonly branch?: string | undefined;
  readonly modifiedFiles?: readonly string[] | undefined;
  readonly openFiles?: readonly string[] | undefined;
}

/** A plan, diff, note... produced earlier in the session. */
export interface ArtifactInput {
  readonly kind: string;
  readonly title: string;
  readonly text: string;
}

/** One message of the conversation; the list is oldest first. */
export interface HistoryEntry {
  readonly role: string;
  readonly text: string;
  readonly at?: string | undefined;
}

/** The part of the current file that was kept: lines `startLine..endLine` of `totalLines`. */
export interface FileWindow {
  readonly path: string;
  readonly cursorLine?: number | undefined;
  readonly startLine: number;
  readonly endLine: number;
  readonly totalLines: number;
  readonly text: string;
}

export interface PackedWorkspace {
  readonly currentFile?: FileWindow | undefined;
  readonly diagnostics: readonly Diagnostic[];
  readonly branch?: string | undefined;
  readonly modifiedFiles?: readonly string[] | undefined;
  readonly openFiles?: readonly string[] | undefined;
}

export interface PackedArtifact extends ArtifactInput {
  /** Position in the input list. */
  readonly index: number;
  /** Lines kept from the start of the text; less than `totalLines` when it was trimmed. */
  readonly keptLines: number;
  readonly totalLines: number;
}

export interface PackedHistoryEntry extends HistoryEntry {
  /** Position in the input list (0 = oldest). */
  readonly index: number;
}

/** What a pack kept, section by section. */
export interface PackSections {
  readonly task: TaskSpec;
  readonly workspace: PackedWorkspace;
  readonly artifacts: readonly PackedArtifact[];
  readonly evidence: readonly EvidenceGroup[];
  readonly history: readonly PackedHistoryEntry[];
}

export function renderTask(task: TaskSpec): string {
  return (
    `task:\n${field('goal', task.goal, 2)}` +
    stringList('acceptance_criteria', task.acceptanceCriteria ?? [], 2) +
    stringList('constraints', task.constraints ?? [], 2) +
    stringList('constitution', task.constitution ?? [], 2)
  );
}

function renderWindow(w: FileWindow): string {
  return (
    `  current_file:\n${field('path', w.path, 4)}` +
    (w.cursorLine !== undefined ? field('cursor_line', w.cursorLine, 4) : '') +
    field('lines', `${w.startLine}-${w.endLine}`, 4) +
    field('total_lines', w.totalLines, 4) +
    field('text', w.text, 4)
  );
}

function renderDiagnostic(d: Diagnostic): string {
  return (
    field('at', `${d.path}:${d.line}`, 6, true) +
    (d.severity !== undefined ? field('severity', d.severity, 6) : '') +
    (d.code !== undefined ? field('code', String(d.code), 6) : '') +
    field('message', d.message, 6)
  );
}

export function renderWorkspace(ws: PackedWorkspace): string {
  const body =
    (ws.currentFile !== undefined ? renderWindow(ws.currentFile) : '') +
    (ws.diagnostics.length > 0 ? `  diagnostics:\n${ws.diagnostics.map(renderDiagnostic).join('')}` : '') +
    (ws.branch !== undefined ? field('branch', ws.branch, 2) : '') +
    stringList('modified_files', ws.modifiedFiles ?? [], 2) +
    stringList('open_files', ws.openFiles ?? [], 2);
  return body === '' ? '' : `workspace:\n${body}`;
}

export function renderArtifact(a: PackedArtifact): string {
  return (
    field('kind', a.kind, 4, true) +
    field('title', a.title, 4) +
    (a.keptLines < a.totalLines ? field('trimmed', `kept lines 1-${a.keptLines} of ${a.totalLines}`, 4) : '') +
    field('text', a.text, 4)
  );
}

export function renderEvidencePiece(p: EvidencePiece): string {
  return (
    field('cite', citation(p), 4, true) +
    (p.hashes.length === 1 ? field('hash', p.hashes[0]!, 4) : stringList('hashes', p.hashes, 4)) +
    (p.kind !== 'chunk' ? field('kind', p.kind, 4) : '') +
    (p.symbols.length > 0 ? field('symbol', p.symbols.join(', '), 4) : '') +
    (p.whys !== undefined && p.whys.length > 0 ? field('why', p.whys.join('; '), 4) : '') +
    (p.pinned === true ? field('pinned', 'true', 4) : '') +
    field('text', p.text, 4)
  );
}

export function renderHistoryEntry(h: HistoryEntry): string {
  return field('role', h.role, 4, true) + (h.at !== undefined ? field('at', h.at, 4) : '') + field('text', h.text, 4);
}

/** `key:\n` and the entries, or nothing when there are none. */
function listSection<T>(key: string, items: readonly T[], render: (t: T) => string): string {
  return items.length === 0 ? '' : `${key}:\n${items.map(render).join('')}`;
}

export function renderArtifacts(list: readonly PackedArtifact[]): string {
  return listSection('artifacts', list, renderArtifact);
}

export function renderEvidence(groups: readonly EvidenceGroup[]): string {
  return listSection('evidence', groups.flatMap((g) => g.pieces), renderEvidencePiece);
}

export function renderHistory(list: readonly PackedHistoryEntry[]): string {
  return listSection('history', list, renderHistoryEntry);
}

export type SectionName = keyof PackSections;

export const SECTION_NAMES: readonly SectionName[] = ['task', 'workspace', 'artifacts', 'evidence', 'history'];

/** Each section's text, in pack order (empty string for a section with nothing in it). */
export function renderSections(s: PackSections): Record<SectionName, string> {
  return {
    task: renderTask(s.task),
    workspace: renderWorkspace(s.workspace),
    artifacts: renderArtifacts(s.artifacts),
    evidence: renderEvidence(s.evidence),
    history: renderHistory(s.history),
  };
}

/** The whole pack as prompt text. */
export function renderPack(s: PackSections): string {
  const parts = renderSections(s);
  return SECTION_NAMES.map((name) => parts[name]).join('');
}
