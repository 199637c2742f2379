import { isAbsolute, relative, sep } from 'node:path';
import { EngineError } from '../core/errors.js';
import type { IndexStore } from '../store/index-store.js';
import type { SymbolRow } from '../store/structure-repo.js';
import { outlineFile } from './outline.js';
import { hasOwnGrammar, nameCandidates } from './name-occurrences.js';
import { ParsedFiles, type ParsedFilesOptions } from './parsed-files.js';

/**
 * What a listed file is to the subject file (`it`): `imports` — it imports the subject;
 * `importedBy` — the subject imports it; `test` — it tests the subject, or the subject tests it;
 * `callers` — the subject's names it calls or uses; `callees` — its names the subject imports and uses.
 */
export interface RelatedRelations {
  readonly imports?: true;
  readonly importedBy?: true;
  readonly test?: true;
  readonly callers?: string[];
  readonly callees?: string[];
}

export interface RelatedFile {
  readonly path: string;
  /** The weighted sum of the relations (see RELATED_WEIGHTS). */
  readonly score: number;
  /** One line per relation, e.g. `imports it`, `its test`, `calls openDatabase()`, `called by it: retryBusy()`. */
  readonly reasons: string[];
  readonly relations: RelatedRelations;
}

export interface RelatedFiles {
  readonly path: string;
  /** Best first: score descending, then path. */
  readonly files: RelatedFile[];
  /** Related files found (before `limit`). */
  readonly total: number;
  /**
   * Present when some code files were indexed by line windows although their language has a
   * grammar (over the parse budget, say): how many. Callers among them are not found (they are
   * not parsed).
   */
  readonly withoutUses?: number;
}

export interface RelatedOptions {
  /** Files to return, 1–200 (default 20). */
  readonly limit?: number;
}

/**
 * Score of each relation: a test is the strongest tie, an import either way next, then each
 * distinct name called across the pair (+1 each, at most `maxNames`).
 */
export const RELATED_WEIGHTS = { test: 3, imports: 2, importedBy: 2, name: 1, maxNames: 5 } as const;

/** The evidence for one subject, gathered from the index; `rankRelated` turns it into a ranking. */
export interface RelatedEvidence {
  /** Files importing the subject; files the subject imports. */
  readonly importers: readonly string[];
  readonly imported: readonly string[];
  /** The subject's tests; for a test file, the files it tests. */
  readonly tests: readonly string[];
  readonly testedFiles: readonly string[];
  /** Per file, the subject's names it uses; per file, its names the subject uses. `call` marks a call. */
  readonly callers: ReadonlyMap<string, ReadonlyMap<string, boolean>>;
  readonly callees: ReadonlyMap<string, ReadonlyMap<string, boolean>>;
}

/** Names of the subject searched for callers at most; shorter names are too common to mean anything. */
const MAX_CALLER_NAMES = 30;
const MIN_NAME_LENGTH = 3;
/** Identifier uses read per name: enough to find the files using it, bounded for very common names. */
const USES_PER_NAME = 200;
const KIND_ORDER: Record<string, number> = { definition: 0, call: 1, import: 2, reference: 3 };
/** Imported names of these kinds count as calls; classes and types as uses (an import does not say `new`). */
const CALLABLE_KINDS = new Set(['function', 'method']);

/** Ranks the related files of `subject`: pure, deterministic (score descending, then path). */
export function rankRelated(subject: string, ev: RelatedEvidence): RelatedFile[] {
  const paths = new Set([...ev.importers, ...ev.imported, ...ev.tests, ...ev.testedFiles, ...ev.callers.keys(), ...ev.callees.keys()]);
  paths.delete(subject);
  const out: RelatedFile[] = [];
  for (const path of paths) {
    const reasons: string[] = [];
    const relations: { -readonly [K in keyof RelatedRelations]: RelatedRelations[K] } = {};
    let score = 0;
    const test = ev.tests.includes(path) ? 'its test' : ev.testedFiles.includes(path) ? 'tested by it' : undefined;
    if (test) {
      relations.test = true;
      score += RELATED_WEIGHTS.test;
      reasons.push(test);
    }
    if (ev.importers.includes(path)) {
      relations.imports = true;
      score += RELATED_WEIGHTS.imports;
      reasons.push('imports it');
    }
    if (ev.imported.includes(path)) {
      relations.importedBy = true;
      score += RELATED_WEIGHTS.importedBy;
      reasons.push('imported by it');
    }
    const callers = ev.callers.get(path);
    const callees = ev.callees.get(path);
    if (callers?.size) reasons.push(...nameReasons(callers, 'calls', 'uses'));
    if (callees?.size) reasons.push(...nameReasons(callees, 'called by it:', 'used by it:'));
    if (callers?.size) relations.callers = [...callers.keys()].sort();
    if (callees?.size) relations.callees = [...callees.keys()].sort();
    const names = new Set([...(callers?.keys() ?? []), ...(callees?.keys() ?? [])]).size;
    score += Math.min(names, RELATED_WEIGHTS.maxNames) * RELATED_WEIGHTS.name;
    out.push({ path, score, reasons, relations });
  }
  return out.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `calls a(), b()` for called names, `uses T` for the others. */
function nameReasons(names: ReadonlyMap<string, boolean>, called: string, used: string): string[] {
  const sorted = [...names.keys()].sort();
  const calls = sorted.filter((n) => names.get(n)).map((n) => `${n}()`);
  const uses = sorted.filter((n) => !names.get(n));
  return [...(calls.length ? [`${called} ${calls.join(', ')}`] : []), ...(uses.length ? [`${used} ${uses.join(', ')}`] : [])];
}

/**
 * Files related to one indexed file: its imports and importers (resolved as `outline` does), its
 * tests, and, matched by name (not type-resolved), the files calling its top-level definitions and
 * the files defining the names it imports. A name defined in several files counts a caller only
 * when that caller also imports the subject, so that same-named definitions elsewhere add no noise.
 */
export async function relatedFiles(store: IndexStore, root: string, path: string, options: RelatedOptions = {}, parsing: ParsedFilesOptions = {}): Promise<RelatedFiles> {
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 200' });
  if (typeof path !== 'string' || path.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'a path relative to the root' });
  const rel = (isAbsolute(path) ? relative(root, path).split(sep).join('/') : path).replace(/^\.\//, '');
  if (rel.startsWith('..') || isAbsolute(rel)) throw new EngineError('PATH_OUTSIDE_ROOT', { path });
  if (!store.read(() => store.files.info(rel))) throw new EngineError('FILE_NOT_FOUND', { path: rel });
  const outline = outlineFile(store, rel);
  const importers = outline.importedBy.map((i) => i.path);
  const evidence: RelatedEvidence = {
    importers,
    imported: outline.imports.flatMap((i) => (i.resolved ? [i.resolved] : [])),
    tests: outline.tests,
    testedFiles: outline.testedFiles,
    callers: await callersOf(store, rel, outline.symbols, new Set(importers), parsing),
    callees: calleesOf(store, rel, outline.imports),
  };
  const files = rankRelated(rel, evidence);
  const withoutUses = store.read(() => store.files.fallbacks()).reduce((n, f) => n + f.files, 0);
  return { path: rel, files: files.slice(0, limit), total: files.length, ...(withoutUses > 0 ? { withoutUses } : {}) };
}

/** Files calling or using the subject's top-level definitions, by name. */
async function callersOf(store: IndexStore, subject: string, symbols: readonly SymbolRow[], importers: ReadonlySet<string>, parsing: ParsedFilesOptions): Promise<Map<string, Map<string, boolean>>> {
  const names = [...new Set(symbols.filter((s) => s.container === null && s.name.length >= MIN_NAME_LENGTH).sort((a, b) => Number(b.exported) - Number(a.exported) || a.startLine - b.startLine).map((s) => s.name))].slice(0, MAX_CALLER_NAMES);
  const out = new Map<string, Map<string, boolean>>();
  // the names are mostly used in the same files: each is read and parsed once for all of them
  const files = new ParsedFiles(store, parsing);
  try {
    for (const name of names) {
      const definitions = store.read(() => store.structure.byName(name, undefined, 1000)).filter((s) => s.name === name);
      const definedElsewhere = definitions.some((s) => s.path !== subject);
      // a name also defined elsewhere counts only in the subject's importers: only those are parsed
      for (const [path, kinds] of await usesByFile(store, files, name, definedElsewhere ? importers : undefined)) {
        if (path === subject) continue;
        const uses = kinds.filter((k) => k === 'call' || k === 'reference');
        if (uses.length === 0) continue;
        const entry = out.get(path) ?? new Map<string, boolean>();
        entry.set(name, uses.includes('call'));
        out.set(path, entry);
      }
    }
  } finally {
    files.close();
  }
  return out;
}

/**
 * The identifier uses of `name` per file, as a reference search orders files (where the name is
 * defined first, then by path) and kinds (definition, call, import, reference), cut after
 * USES_PER_NAME uses: the candidate files (those in `only`, when given) are parsed now. A file the
 * index pass chunked by line windows (over the parse budget) is not parsed here: `withoutUses`
 * counts them.
 */
async function usesByFile(store: IndexStore, files: ParsedFiles, name: string, only: ReadonlySet<string> | undefined): Promise<Array<[string, string[]]>> {
  const out: Array<[string, string[]]> = [];
  let total = 0;
  for (const file of nameCandidates(store, name).files) {
    if (total >= USES_PER_NAME) break;
    if (file.parser !== 'tree-sitter' || !hasOwnGrammar(file.language) || (only && !only.has(file.path))) continue;
    const text = files.text(file);
    if (text === undefined || !text.includes(name)) continue;
    const uses = await files.uses(file, name, text);
    if (!uses || uses.size === 0) continue;
    const kinds = [...uses.values()].sort((a, b) => KIND_ORDER[a]! - KIND_ORDER[b]!).slice(0, USES_PER_NAME - total);
    total += kinds.length;
    out.push([file.path, kinds]);
  }
  return out;
}

/** Per imported repository file, the imported names defined there at top level. */
function calleesOf(store: IndexStore, subject: string, imports: ReadonlyArray<{ resolved: string | null; names: readonly string[] }>): Map<string, Map<string, boolean>> {
  const out = new Map<string, Map<string, boolean>>();
  for (const imp of imports) {
    if (!imp.resolved || imp.resolved === subject || imp.names.length === 0) continue;
    const target = imp.resolved;
    const defs = store.read(() => store.structure.inFile(target)).filter((s) => s.container === null);
    for (const name of imp.names) {
      const def = defs.find((s) => s.name === name);
      if (!def) continue;
      const entry = out.get(target) ?? new Map<string, boolean>();
      entry.set(name, (entry.get(name) ?? false) || CALLABLE_KINDS.has(def.kind));
      out.set(target, entry);
    }
  }
  return out;
}
