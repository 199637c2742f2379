import type { Tree } from 'web-tree-sitter';
import { EngineError } from '../core/errors.js';
import { loadGrammars, type LoadedGrammar } from '../parse/grammars.js';
import { grammarLanguages } from '../parse/languages/registry.js';
import type { IndexStore } from '../store/index-store.js';

/**
 * How a name occurs: where it is defined, called, imported, otherwise used in code, or only
 * mentioned in a comment, string or a file without a grammar (`text`).
 */
export type ReferenceKind = 'definition' | 'call' | 'import' | 'reference' | 'text';

export interface Reference {
  readonly line: number;
  /** 1-based, UTF-16 code units. */
  readonly column: number;
  readonly kind: ReferenceKind;
  /** The line, trimmed and cut at 200 characters. */
  readonly text: string;
}

export interface ReferenceGroup {
  readonly path: string;
  readonly language: string;
  readonly references: Reference[];
}

export interface ReferencesResult {
  readonly name: string;
  readonly files: ReferenceGroup[];
  /** References returned (at most `limit`). */
  readonly total: number;
  /** True when more references exist than were returned. */
  readonly truncated: boolean;
}

/** Files whose text is scanned at most per query: a name used in more files is reported as truncated. */
const MAX_CANDIDATE_FILES = 2000;
const NAME_RE = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;
const KIND_ORDER: Record<ReferenceKind, number> = { definition: 0, call: 1, import: 2, reference: 3, text: 4 };

/** The trimmed identifier of a references lookup, or QUERY_EMPTY / INVALID_ARGUMENT (checked before any index is opened). */
export function checkReferenceQuery(name: unknown, limit: number): string {
  const n = typeof name === 'string' ? name.trim() : '';
  if (n === '') throw new EngineError('QUERY_EMPTY');
  if (!NAME_RE.test(n) || n.length > 200) throw new EngineError('INVALID_ARGUMENT', { name: 'name', reason: 'an identifier: letters, digits, _ and $, not starting with a digit' });
  if (!Number.isInteger(limit) || limit < 1 || limit > 5000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 5000' });
  return n;
}

/**
 * References to a name, by name (not type-resolved). Candidate files come from the FTS index,
 * which keeps identifiers whole; each candidate's stored text is scanned for the name at word
 * boundaries and, where a grammar exists, each occurrence is classified on the syntax tree
 * (parsed on demand: references are not stored, see docs/DESIGN.md "References").
 * Files are ordered: where the name is defined first, then code, then other files, then by path.
 */
export async function findReferences(store: IndexStore, name: string, limit: number): Promise<ReferencesResult> {
  const n = checkReferenceQuery(name, limit);
  const tokens = n.split(/[$]+/).filter(Boolean);
  const match = `body : "${tokens.join(' ')}"`;
  const candidates = store.read(() => store.search.filesMatching(match, MAX_CANDIDATE_FILES + 1));
  const definedIn = new Set(store.read(() => store.structure.byName(n, undefined, 1000)).filter((s) => s.name === n).map((s) => s.path));
  const ordered = candidates.slice(0, MAX_CANDIDATE_FILES).sort((a, b) => rankFile(a, definedIn) - rankFile(b, definedIn) || a.path.localeCompare(b.path));
  const grammars = await loadGrammars(ordered.flatMap((c) => grammarLanguages(c.language)));
  const files: ReferenceGroup[] = [];
  let total = 0;
  let truncated = candidates.length > MAX_CANDIDATE_FILES;
  for (const file of ordered) {
    if (total >= limit) {
      truncated = true;
      break;
    }
    const text = store.read(() => store.content.text(file.hash));
    if (text === undefined) continue;
    const defs = new Set(store.read(() => store.structure.inFile(file.path)).filter((s) => s.name === n).map((s) => `${s.startLine}`));
    const importLines = new Set(store.read(() => store.structure.importsOf(file.path)).map((i) => i.line));
    let refs = scanFile(text, n, grammars.get(file.language), defs, importLines);
    if (refs.length === 0) continue;
    if (total + refs.length > limit) {
      refs = refs.slice(0, limit - total);
      truncated = true;
    }
    total += refs.length;
    files.push({ path: file.path, language: file.language, references: refs });
  }
  return { name: n, files, total, truncated };
}

function rankFile(f: { path: string; language: string }, definedIn: ReadonlySet<string>): number {
  if (definedIn.has(f.path)) return 0;
  return grammarLanguages(f.language).length > 0 ? 1 : 2;
}

/** Occurrences of `name` at identifier boundaries, classified when a grammar is at hand. */
function scanFile(text: string, name: string, grammar: LoadedGrammar | undefined, defLines: ReadonlySet<string>, importLines: ReadonlySet<number>): Reference[] {
  const re = new RegExp(`(?<![\\p{L}\\p{N}_$])${name.replace(/\$/g, '\\$')}(?![\\p{L}\\p{N}_$])`, 'gu');
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  let tree: Tree | null = null;
  try {
    if (grammar) tree = grammar.parser.parse(text);
    const out: Reference[] = [];
    let line = 0;
    for (const m of text.matchAll(re)) {
      const at = m.index;
      while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= at) line++;
      const kind = classify(tree, grammar, at, name.length, line + 1, defLines, importLines);
      const lineText = text.slice(lineStarts[line], (lineStarts[line + 1] ?? text.length + 1) - 1).trim();
      out.push({ line: line + 1, column: at - lineStarts[line]! + 1, kind, text: lineText.length > 200 ? `${lineText.slice(0, 199)}…` : lineText });
    }
    return out.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.line - b.line || a.column - b.column);
  } finally {
    tree?.delete();
  }
}

function classify(tree: Tree | null, grammar: LoadedGrammar | undefined, at: number, length: number, line: number, defLines: ReadonlySet<string>, importLines: ReadonlySet<number>): ReferenceKind {
  if (!tree || !grammar) return 'text';
  const node = tree.rootNode.descendantForIndex(at, at + length);
  if (!node || !grammar.spec.identifiers.includes(node.type)) return 'text';
  if (defLines.has(`${line}`)) {
    const parent = node.parent;
    if (parent && parent.childForFieldName('name')?.id === node.id) return 'definition';
  }
  if (importLines.has(line)) return 'import';
  let callee = node.parent;
  // `obj.method(...)`, `pkg::f(...)`: the member expression whose last part is the name is the callee
  if (callee && !grammar.spec.calls.includes(callee.type) && callee.endIndex === node.endIndex) callee = callee.parent;
  if (callee && grammar.spec.calls.includes(callee.type)) {
    const args = callee.childForFieldName('arguments');
    if (!args || node.endIndex <= args.startIndex) return 'call';
  }
  return 'reference';
}
