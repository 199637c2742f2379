/**
 * What the steps of a task strategy share for one request: the engine calls they read through, a
 * cache of outlines, and the ways a definition becomes evidence (its code cut to the piece cap, or
 * its signature line). Built per request; no state outlives it.
 */
import type { EvidenceInput } from '../context/evidence-merge.js';
import type { Diagnostic } from '../context/pack-sections.js';
import type { DiffFile } from '../context/diff-hunks.js';
import type { FailureItem } from '../context/failure-item.js';
import type { EvidenceSource, StrategyStep } from '../context/task-strategy.js';
import { whyOf } from '../context/task-strategy.js';
import type { FileOutline } from '../search/outline.js';
import type { ReferencesResult } from '../search/references.js';
import type { RelatedFiles, RelatedOptions } from '../search/related.js';
import type { SymbolRow } from '../store/structure-repo.js';
import type { SearchResponse } from '../search/search-result.js';
import type { SymbolHit } from '../search/symbol-search.js';
import type { FileSlice, ReadFileOptions } from '../workspace/files.js';
import type { SummaryDeps } from './context-summaries.js';
import type { ContextOptions, ReferenceOptions, SearchOptions, SymbolOptions } from './engine-api.js';
import { capChunk } from './evidence-text.js';

/** What building a query's context needs from the engine. */
export interface ContextDeps extends SummaryDeps {
  search(query: string, options: SearchOptions): Promise<SearchResponse>;
  symbols(name: string, options: SymbolOptions): Promise<SymbolHit[]>;
  readFile(path: string, options: ReadFileOptions): Promise<FileSlice>;
  /** Lines of a file as indexed (what chunk spans refer to). */
  readStored(path: string, startLine: number, endLine: number): Promise<string>;
  /** Definitions a language server resolves near the cursor (issue 21, optional): prepended to the evidence. */
  readonly definitionsNear?: ((current: NonNullable<ContextOptions['current']>) => Promise<EvidenceInput[]>) | undefined;
}

/** What a task's strategy needs besides: the root (to place a log's absolute paths) and structure queries. */
export interface TaskDeps extends ContextDeps {
  readonly root: string;
  related(path: string, options: RelatedOptions): Promise<RelatedFiles>;
  references(name: string, options: ReferenceOptions): Promise<ReferencesResult>;
}

/** What the steps of one request work from. */
export interface TaskRequest {
  readonly query: string;
  readonly current?: { readonly path: string; readonly line: number } | undefined;
  readonly selection?: { readonly startLine: number; readonly endLine: number } | undefined;
  readonly openFiles: readonly string[];
  /** Failure items placed on indexed files. */
  readonly failures: readonly FailureItem[];
  readonly diagnostics: readonly Diagnostic[];
  readonly diff: readonly DiffFile[];
  readonly draft?: string | undefined;
  /** Only chunks in this language from search. */
  readonly language?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Kinds a line is "inside" of, innermost first by span. */
const CODE_KINDS = new Set(['function', 'method', 'class', 'struct', 'interface', 'enum', 'type', 'module']);
/** Lines each side of a line that no definition encloses. */
const WINDOW_RADIUS = 12;

export class TaskKit {
  private readonly outlines = new Map<string, Promise<FileOutline | undefined>>();
  /** Rounds of iterative retrieval, recorded by the round-2 step. */
  readonly rounds: { round: number; from: 'evidence' | 'draft' | 'query'; identifiers: string[] }[] = [];

  constructor(
    readonly deps: TaskDeps,
    readonly request: TaskRequest,
    /** Token cap of one piece (estimated). */
    readonly pieceCap: number,
    /** Token cap of one pinned piece (estimated): pins are never dropped, so they are kept small. */
    readonly pinCap: number = pieceCap,
  ) {}

  /** The file's outline, or undefined when it is not indexed (cached for the request). */
  outline(path: string): Promise<FileOutline | undefined> {
    let o = this.outlines.get(path);
    if (o === undefined) this.outlines.set(path, (o = this.deps.outline(path).catch(() => undefined)));
    return o;
  }

  /** The innermost definition of a code kind whose span holds `line`. */
  async definitionAt(path: string, line: number): Promise<SymbolRow | undefined> {
    const o = await this.outline(path);
    const holding = (o?.symbols ?? []).filter((s) => CODE_KINDS.has(s.kind) && s.startLine <= line && line <= s.endLine);
    return holding.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
  }

  /** A definition as evidence: its signature line, or its code cut to the piece cap. */
  async definition(sym: SymbolRow, step: StrategyStep, detail: string, form = step.form): Promise<EvidenceInput | undefined> {
    const symbol = sym.container ? `${sym.container}.${sym.name}` : sym.name;
    const why = whyOf(step.source, detail);
    if (form === 'signature' && sym.signature) return { path: sym.path, startLine: sym.startLine, endLine: sym.startLine, text: sym.signature, kind: 'signature', symbol, why, pinned: step.pinned };
    return this.lines(sym.path, sym.startLine, sym.endLine, step, detail, symbol);
  }

  /** Lines of a file as indexed, cut to the piece cap. */
  async lines(path: string, startLine: number, endLine: number, step: StrategyStep, detail: string, symbol?: string): Promise<EvidenceInput | undefined> {
    const stored = await this.deps.readStored(path, startLine, endLine);
    if (stored === '') return undefined;
    const { text, endLine: end } = capChunk(stored, startLine, step.pinned === true ? this.pinCap : this.pieceCap);
    return { path, startLine, endLine: end, text, kind: 'chunk', symbol, why: whyOf(step.source, detail), pinned: step.pinned };
  }

  /** The definition holding a line as evidence, else a window of lines around it. */
  async around(path: string, line: number, step: StrategyStep, detail: string): Promise<EvidenceInput | undefined> {
    const sym = line > 0 ? await this.definitionAt(path, line) : undefined;
    if (sym !== undefined) return this.definition(sym, step, detail);
    const at = Math.max(line, 1);
    return this.lines(path, Math.max(1, at - WINDOW_RADIUS), at + WINDOW_RADIUS, step, detail);
  }

  /** The text the cursor is in: the selection, else the definition holding the cursor, else lines around it. */
  async focusText(): Promise<string> {
    const cur = this.request.current;
    if (cur === undefined) return '';
    const sel = this.request.selection;
    if (sel !== undefined) return this.deps.readStored(cur.path, sel.startLine, sel.endLine);
    const sym = await this.definitionAt(cur.path, cur.line);
    if (sym !== undefined) return this.deps.readStored(cur.path, sym.startLine, sym.endLine);
    return this.deps.readStored(cur.path, Math.max(1, cur.line - 30), cur.line + 30);
  }

  /**
   * Exact definitions of a name, optionally only in one file; with a current file, only those in
   * its language (a Python `main()` does not call a Java `main`).
   */
  async definitionsOf(name: string, inPath?: string): Promise<SymbolRow[]> {
    const hits = await this.deps.symbols(name, { limit: 8 });
    const cur = this.request.current;
    const language = cur === undefined ? undefined : (await this.outline(cur.path))?.language;
    return hits.filter((h) => h.match === 'exact' && h.name === name && (inPath === undefined || h.path === inPath) && (language === undefined || h.language === language));
  }

  why(source: EvidenceSource, detail: string): string {
    return whyOf(source, detail);
  }
}

/** Runs `fn` over items until `limit` pieces are found, skipping misses; pieces keep their order. */
export async function collect<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<EvidenceInput | EvidenceInput[] | undefined>): Promise<EvidenceInput[]> {
  const out: EvidenceInput[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (out.length >= limit) break;
    const got = await fn(item);
    for (const e of got === undefined ? [] : Array.isArray(got) ? got : [got]) {
      const key = `${e.path}:${e.startLine}-${e.endLine}:${e.kind ?? 'chunk'}`;
      if (seen.has(key) || out.length >= limit) continue;
      seen.add(key);
      out.push(e);
    }
  }
  return out;
}
