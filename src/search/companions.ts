/**
 * Companion ranking of long texts (issue 18, companions; docs/DESIGN.md "Ranking II"): a fix that
 * changes several files changes files tied to each other — the module a changed file imports, the
 * package `__init__.py` that re-exports it, its test. The first `anchors` files of a long text's
 * list stand for what the text is about; each file ranked below them (down to file rank `window`)
 * that is structurally tied to one of them gets its chunks' scores × (1 + `boost`), and the list is
 * re-sorted. Pure: the imports are read by companion-pass.ts.
 *
 * On the large tune half (bench/long-companions.ts), a file at file rank 6–20 of a multi-file text
 * that is tied to one of the first 3 is gold 3–10× as often as one that is not (TIE_WEIGHTS).
 */
import { posix } from 'node:path';
import { resolveImport } from './relations.js';

export interface CompanionSettings {
  /** A tied file's chunks score × (1 + boost); 0 turns the step off. */
  readonly boost: number;
  /** The first this many files of the list are the anchors. */
  readonly anchors: number;
  /** Files ranked below the anchors down to this file rank may be companions. */
  readonly window: number;
}

/** What a companion is to its anchor, as `--explain` says it. */
export type CompanionTie = 'imported by it' | 'imports it' | 'its package __init__' | 'same directory';

/**
 * The share of `boost` each tie earns. On the large tune half a file at file rank 6–20 of a
 * multi-file text imported by one of the first 3 files is gold 13% of the time, one importing one
 * 7%, one in the same directory 7%, an untied one 1.6%; a test of one never was (0 of 26: the
 * fixes' gold files are not tests), so tests are no tie.
 */
export const TIE_WEIGHTS: Readonly<Record<CompanionTie, number>> = { 'imported by it': 1, 'imports it': 1, 'its package __init__': 1, 'same directory': 0.5 };

export interface Companion {
  readonly anchor: string;
  readonly tie: CompanionTie;
  /** The tie's weight (TIE_WEIGHTS): the companion's chunks score × (1 + boost × weight). */
  readonly weight: number;
}

/** A file's language and import specifiers (as stored). */
export interface FileImports {
  readonly language: string;
  readonly sources: readonly string[];
}

/** The distinct files of a ranked list, best first. */
export function fileOrder(rows: ReadonlyArray<{ readonly path: string }>): string[] {
  return [...new Set(rows.map((r) => r.path))];
}

/** Every `__init__.py` of the packages `path` is in, its own directory first. */
export function packageInits(path: string): string[] {
  const out: string[] = [];
  for (let dir = posix.dirname(path); dir !== '.' && dir !== '/' && dir !== ''; dir = posix.dirname(dir)) out.push(`${dir}/__init__.py`);
  return out;
}

/** Languages whose imports end with the imported file's (or its directory's) name: the ones filtered by name before resolving. */
const NAMED_IMPORTS = new Set(['python', 'typescript', 'tsx', 'javascript']);

/** The names an import of one of `files` may end with: each file's stem and its directory's name. */
function importTails(files: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    const base = posix.basename(f);
    out.add(base.includes('.') ? base.slice(0, base.indexOf('.')) : base);
    out.add(posix.basename(posix.dirname(f)));
  }
  return out;
}

/** The last name of an import specifier (`dvc.repo.index` → `index`, `./store/db.js` → `db`); '' for `.` or `..`. */
function lastName(source: string): string {
  const parts = source.replace(/\.(?:[cm]?[jt]sx?|py)$/, '').split(/[./\\:]+/).filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

/**
 * The files `path` imports among `files` (resolved as `outline` does, against the listed files
 * only). A Python or JavaScript import whose last name is no listed file's stem or directory
 * cannot resolve to one of them, and is not resolved (most are not).
 */
function resolvedImports(path: string, imports: ReadonlyMap<string, FileImports>, files: ReadonlySet<string>, tails: ReadonlySet<string>): Set<string> {
  const own = imports.get(path);
  const out = new Set<string>();
  if (!own) return out;
  const named = NAMED_IMPORTS.has(own.language);
  for (const source of own.sources) {
    const last = named ? lastName(source) : '';
    if (last !== '' && !tails.has(last)) continue;
    const hit = resolveImport(source, path, own.language, files);
    if (hit !== undefined && hit !== path) out.add(hit);
  }
  return out;
}

/** The tie of `file` to `anchor`, the strongest first (an import either way, the package, the directory), or undefined. */
function tieOf(file: string, anchor: string, resolved: (path: string) => ReadonlySet<string>): CompanionTie | undefined {
  if (resolved(anchor).has(file)) return 'imported by it';
  if (resolved(file).has(anchor)) return 'imports it';
  if (packageInits(anchor).includes(file)) return 'its package __init__';
  if (posix.dirname(anchor) === posix.dirname(file)) return 'same directory';
  return undefined;
}

/**
 * The companions among `order` (distinct files, best first): each file at file rank
 * `anchors`+1…`window` tied to one of the first `anchors` files, with its strongest tie (the first anchor of it).
 */
export function findCompanions(order: readonly string[], imports: ReadonlyMap<string, FileImports>, settings: CompanionSettings): Map<string, Companion> {
  const out = new Map<string, Companion>();
  const anchors = order.slice(0, settings.anchors);
  const candidates = order.slice(settings.anchors, Math.max(settings.anchors, settings.window));
  if (anchors.length === 0 || candidates.length === 0) return out;
  const files = new Set([...anchors, ...candidates]);
  const tails = importTails(files);
  const memo = new Map<string, Set<string>>();
  const resolved = (path: string): Set<string> => {
    let hit = memo.get(path);
    if (!hit) memo.set(path, (hit = resolvedImports(path, imports, files, tails)));
    return hit;
  };
  for (const file of candidates) {
    for (const anchor of anchors) {
      const tie = tieOf(file, anchor, resolved);
      const best = out.get(file);
      if (tie && (!best || TIE_WEIGHTS[tie] > best.weight)) out.set(file, { anchor, tie, weight: TIE_WEIGHTS[tie] });
    }
  }
  return out;
}

type Ranked = { readonly path: string; readonly score: number; readonly startLine: number; readonly why?: readonly string[] | undefined };

/**
 * `rows` (best first) with each companion's chunks × (1 + boost × weight) and a `why` line,
 * re-sorted (score, then path, then line). A companion never passes an anchor: its factor stops
 * short of lifting its best chunk to the best chunk of the last of the first `anchors` files (one
 * factor per file, so its chunks keep their order), so the first files and the first chunk stay.
 */
export function applyCompanions<T extends Ranked>(rows: readonly T[], companions: ReadonlyMap<string, Companion>, boost: number, anchors: number): Array<T & { readonly why?: readonly string[] | undefined }> {
  if (boost <= 0 || companions.size === 0) return [...rows];
  const best = new Map<string, number>();
  for (const r of rows) best.set(r.path, Math.max(best.get(r.path) ?? -Infinity, r.score));
  const floor = Math.min(...fileOrder(rows).slice(0, anchors).map((p) => best.get(p)!));
  const factors = new Map<string, number>();
  for (const [path, c] of companions) {
    const own = best.get(path);
    if (own === undefined || own <= 0) continue;
    const factor = Math.min(1 + boost * c.weight, (floor / own) * (1 - 1e-9));
    if (factor > 1) factors.set(path, factor);
  }
  return rows
    .map((r) => {
      const c = companions.get(r.path);
      const factor = factors.get(r.path);
      if (!c || factor === undefined) return r;
      return { ...r, score: r.score * factor, why: [...(r.why ?? []), `companion of ${c.anchor}: ${c.tie} ×${factor.toFixed(2)}`] };
    })
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.startLine - b.startLine);
}
