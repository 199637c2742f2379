import type { Node, QueryCapture, Tree } from 'web-tree-sitter';
import type { ImportDraft, NameUsesDraft, SymbolDraft, UseKind } from '../core/symbol.js';
import type { LoadedGrammar } from './grammars.js';
import { LineTable } from './line-table.js';

/** A name as a reference search matches it: a maximal run of letters, digits, `_` and `$`. */
const WORD_RE = /[\p{L}\p{N}_$]+/gu;
const LETTER: Record<UseKind, string> = { definition: 'd', call: 'c', import: 'i', reference: 'r' };
const KIND: Record<string, UseKind> = { d: 'definition', c: 'call', i: 'import', r: 'reference' };

/**
 * How the identifier `node` is used: defined (the `name` of its parent, on a line where a
 * definition of that name starts), imported (on an import line), called (it ends the callee of
 * a call, before the arguments), or otherwise referenced.
 */
export function classifyIdentifier(grammar: LoadedGrammar, node: Node, definedHere: boolean, importLine: boolean): UseKind {
  if (definedHere) {
    const parent = node.parent;
    if (parent && parent.childForFieldName('name')?.id === node.id) return 'definition';
  }
  if (importLine) return 'import';
  let callee = node.parent;
  // `obj.method(...)`, `pkg::f(...)`: the member expression whose last part is the name is the callee
  if (callee && !grammar.spec.calls.includes(callee.type) && callee.endIndex === node.endIndex) callee = callee.parent;
  if (callee && grammar.spec.calls.includes(callee.type)) {
    const args = callee.childForFieldName('arguments');
    if (!args || node.endIndex <= args.startIndex) return 'call';
  }
  return 'reference';
}

/**
 * Every identifier of a parsed file, classified, grouped by name (names in order of first
 * occurrence). An identifier made of several words (`empty?`, `foo-bar`) gives each word at its
 * own offset, with the identifier's kind: a reference search for the word finds it there.
 * With `only`, the uses of that one name (the others are skipped before they are classified).
 */
export function collectNameUses(
  grammar: LoadedGrammar,
  tree: Tree,
  text: string,
  symbols: ReadonlyArray<Pick<SymbolDraft, 'name' | 'startLine'>>,
  imports: ReadonlyArray<Pick<ImportDraft, 'line'>>,
  only?: string,
): NameUsesDraft[] {
  const query = grammar.identifiers;
  if (!query) return [];
  const table = new LineTable(text);
  const defLines = new Set(symbols.map((s) => `${s.name}\n${s.startLine}`));
  const importLines = new Set(imports.map((i) => i.line));
  const byName = new Map<string, string[]>();
  const last = new Map<string, number>();
  const captures = only === undefined ? query.captures(tree.rootNode) : capturesAround(query, tree, text, only);
  const callees = calleeSpans(captures.filter((c) => c.name === 'call').map((c) => c.node));
  for (const { name, node } of captures) {
    if (name !== 'id') continue;
    const at = node.startIndex;
    const end = node.endIndex;
    const word = text.slice(at, end);
    if (only !== undefined && !word.includes(only)) continue;
    const line = lineAt(table, at);
    for (const m of word.matchAll(WORD_RE)) {
      if (only !== undefined && m[0] !== only) continue;
      const definedHere = defLines.has(`${m[0]}\n${line + 1}`);
      const importLine = importLines.has(line + 1);
      // the common case decided without walking to the parent (classifyIdentifier's rules)
      const kind = definedHere || importLine ? classifyIdentifier(grammar, node, definedHere, importLine) : isCallee(node, at, end, callees) ? 'call' : 'reference';
      const list = byName.get(m[0]) ?? [];
      const offset = at + m.index;
      list.push(`${(offset - (last.get(m[0]) ?? 0)).toString(36)}${LETTER[kind]}`);
      last.set(m[0], offset);
      byName.set(m[0], list);
    }
  }
  return [...byName].map(([name, uses]) => ({ name, uses: uses.join(' ') }));
}

/**
 * The captures of the identifiers query that intersect an occurrence of `word` in the text (the
 * identifiers there and the calls around them), each once: one query per occurrence instead of
 * one over the whole tree. Ranges are in bytes of the UTF-16 text tree-sitter parsed.
 */
function capturesAround(query: NonNullable<LoadedGrammar['identifiers']>, tree: Tree, text: string, word: string): QueryCapture[] {
  const out: QueryCapture[] = [];
  const seen = new Set<string>();
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) {
    for (const c of query.captures(tree.rootNode, { startIndex: at * 2, endIndex: (at + word.length) * 2 })) {
      const key = `${c.name}:${c.node.startIndex}:${c.node.endIndex}:${c.node.typeId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(c);
    }
  }
  return out;
}

/**
 * The children of every call that end before its arguments, as end offset → start offsets. An
 * identifier is called when it is such a child, or the last child (same end) of one: the
 * callee `obj.method` of `obj.method(...)`. Read once per file, so that identifiers need no
 * parent lookups (classifyIdentifier's rule, computed from the calls' side).
 */
function calleeSpans(calls: readonly Node[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const call of calls) {
    const limit = call.childForFieldName('arguments')?.startIndex ?? Infinity;
    for (const child of call.children) {
      if (!child) continue;
      const end = child.endIndex;
      if (end > limit) continue;
      const starts = out.get(end);
      if (starts) starts.push(child.startIndex);
      else out.set(end, [child.startIndex]);
    }
  }
  return out;
}

function isCallee(node: Node, start: number, end: number, callees: ReadonlyMap<number, readonly number[]>): boolean {
  const starts = callees.get(end);
  if (!starts) return false;
  if (starts.includes(start)) return true;
  const parent = node.parent;
  return parent !== null && parent.endIndex === end && starts.includes(parent.startIndex);
}

/** The 0-based line holding UTF-16 offset `at`. */
function lineAt(table: LineTable, at: number): number {
  let lo = 0;
  let hi = table.count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (table.charStarts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Offset → kind of one name's stored occurrences (see NameUsesDraft). */
export function unpackUses(uses: string): Map<number, UseKind> {
  const out = new Map<number, UseKind>();
  if (uses === '') return out;
  let offset = 0;
  for (const u of uses.split(' ')) {
    offset += parseInt(u.slice(0, -1), 36);
    out.set(offset, KIND[u.slice(-1)]!);
  }
  return out;
}
