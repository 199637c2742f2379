import type { Node, QueryMatch, Tree } from 'web-tree-sitter';
import type { ImportDraft, ImportKind, SymbolDraft, SymbolKind } from '../core/symbol.js';
import { SYMBOL_KINDS } from '../core/symbol.js';
import type { LoadedGrammar } from './grammars.js';

/** A definition in the syntax tree, with its place among the other definitions. */
export interface Definition {
  readonly node: Node;
  readonly name: string;
  /** undefined for a scope that is not a symbol (Rust `impl Foo`). */
  readonly kind: SymbolKind | undefined;
  /** Label in a breadcrumb: `class Foo`, `impl Foo`. */
  readonly label: string;
  /** Name of the container given by the definition itself (Go receiver), if any. */
  readonly receiver?: string | undefined;
  parent: Definition | undefined;
  readonly children: Definition[];
  /** Dropped definitions (locals inside functions) are kept in the tree for containment only. */
  keep: boolean;
}

const KINDS = new Set<string>(SYMBOL_KINDS);
const FUNCTION_KINDS = new Set<SymbolKind | undefined>(['function', 'method']);
const SIGNATURE_MAX = 200;
/** Kinds a more specific pattern overrides when both match one node. */
const GENERIC = new Set<SymbolKind | undefined>(['variable', 'constant']);

/**
 * Definitions found by the language's query, nested by containment (a method's parent is its
 * class). Variables and constants declared inside a function are locals, not symbols; they are
 * dropped, as is everything but functions and classes nested in a function.
 */
/**
 * Runs the grammar's query once; matches split into definition, import and documentation patterns. `progress`
 * is called as the query advances and cancels it by returning true (the matches are then partial).
 */
export function runQuery(grammar: LoadedGrammar, tree: Tree, progress?: () => boolean): { definitions: QueryMatch[]; imports: QueryMatch[]; docs: QueryMatch[] } {
  const definitions: QueryMatch[] = [];
  const imports: QueryMatch[] = [];
  const docs: QueryMatch[] = [];
  for (const m of grammar.query.matches(tree.rootNode, progress ? { progressCallback: progress } : {})) {
    (m.patternIndex < grammar.importsFrom ? definitions : m.patternIndex < grammar.docFrom ? imports : docs).push(m);
  }
  return { definitions, imports, docs };
}

export function findDefinitions(grammar: LoadedGrammar, matches: readonly QueryMatch[]): Definition[] {
  const found: Definition[] = [];
  const seen = new Map<number, number>();
  for (const match of matches) {
    let node: Node | undefined;
    let nameNode: Node | undefined;
    let kind: string | undefined;
    let receiver: string | undefined;
    let scope = false;
    for (const c of match.captures) {
      if (c.name === 'name') nameNode = c.node;
      else if (c.name === 'receiver') receiver = c.node.text;
      else if (c.name === 'scope') {
        node = c.node;
        scope = true;
      } else if (c.name.startsWith('definition.')) {
        node = c.node;
        kind = c.name.slice('definition.'.length);
      }
    }
    if (!node || !nameNode || (!scope && !KINDS.has(kind ?? ''))) continue;
    const name = nameNode.text;
    const symbolKind = scope ? undefined : (kind as SymbolKind);
    const label = scope ? `${node.type.startsWith('impl') ? 'impl' : 'scope'} ${name}` : `${symbolKind} ${name}`;
    const def: Definition = { node, name, kind: symbolKind, label, receiver, parent: undefined, children: [], keep: true };
    const at = seen.get(node.id);
    if (at === undefined) {
      seen.set(node.id, found.length);
      found.push(def);
    } else if (GENERIC.has(found[at]!.kind) && !GENERIC.has(symbolKind)) {
      found[at] = def; // two patterns matched one node: `const f = () => {}` is a function, not a constant
    }
  }
  found.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
  const roots: Definition[] = [];
  const stack: Definition[] = [];
  for (const d of found) {
    while (stack.length > 0 && stack[stack.length - 1]!.node.endIndex < d.node.endIndex) stack.pop();
    while (stack.length > 0 && stack[stack.length - 1]!.node.endIndex <= d.node.startIndex) stack.pop();
    const parent = stack[stack.length - 1];
    d.parent = parent;
    if (parent) parent.children.push(d);
    else roots.push(d);
    stack.push(d);
    if (insideFunction(d) && d.kind !== 'class') d.keep = false;
  }
  return roots;
}

function insideFunction(d: Definition): boolean {
  for (let p = d.parent; p; p = p.parent) if (FUNCTION_KINDS.has(p.kind)) return true;
  return false;
}

/** The declaration head: the definition's text up to its body, whitespace collapsed. */
export function signatureOf(node: Node, text: string): string {
  let body = node.childForFieldName('body');
  if (!body) {
    const value = node.childForFieldName('value');
    body = value?.childForFieldName('body') ?? null;
  }
  let end = body && body.startIndex > node.startIndex ? body.startIndex : node.endIndex;
  const newline = text.indexOf('\n', node.startIndex);
  if (!body && newline !== -1 && newline < end) end = newline;
  end = Math.min(end, node.startIndex + SIGNATURE_MAX * 4);
  const head = text.slice(node.startIndex, end).replace(/\s+/g, ' ').trim().replace(/\s*[{:=]$/, '');
  return head.length > SIGNATURE_MAX ? `${head.slice(0, SIGNATURE_MAX - 1)}…` : head;
}

function containerPath(d: Definition): string | undefined {
  const names: string[] = [];
  for (let p = d.parent; p; p = p.parent) names.unshift(p.name);
  if (d.receiver && names[names.length - 1] !== d.receiver) names.push(d.receiver);
  return names.length > 0 ? names.join('.') : undefined;
}

/** Every kept definition as a symbol, in source order. */
export function symbolsOf(grammar: LoadedGrammar, roots: readonly Definition[], text: string): SymbolDraft[] {
  const out: SymbolDraft[] = [];
  const visit = (d: Definition): void => {
    if (d.keep && d.kind) {
      const s = d.node.startPosition;
      const e = d.node.endPosition;
      out.push({
        name: d.name,
        kind: d.kind,
        container: containerPath(d),
        signature: signatureOf(d.node, text),
        startLine: s.row + 1,
        startCol: s.column + 1,
        endLine: e.row + 1,
        endCol: e.column + 1,
        exported: grammar.spec.exported(d.node, d.name),
      });
    }
    for (const c of d.children) visit(c);
  };
  for (const r of roots) visit(r);
  return out;
}

const IMPORT_KINDS: readonly ImportKind[] = ['import', 'export', 'require', 'include', 'use'];
const MAX_IMPORTS = 2000;

/** Import statements, one per match of the language's imports query. */
export function importsOf(grammar: LoadedGrammar, matches: readonly QueryMatch[]): ImportDraft[] {
  const out: ImportDraft[] = [];
  const byStatement = new Map<number, { names: string[] }>();
  for (const match of matches) {
    let statement = -1;
    let statementNode: Node | undefined;
    let source: string | undefined;
    let kind: ImportKind | undefined;
    let line = 0;
    const names: string[] = [];
    for (const c of match.captures) {
      if (c.name === 'source') source = c.node.text.replace(/^["'<`]|["'>`]$/g, '');
      else if (c.name === 'name') names.push(c.node.type.includes('namespace') || c.node.text === '*' ? '*' : c.node.text);
      else if ((IMPORT_KINDS as readonly string[]).includes(c.name)) {
        kind = c.name as ImportKind;
        line = c.node.startPosition.row + 1;
        statement = c.node.id;
        statementNode = c.node;
      }
    }
    if (source === undefined || !kind || source.length > 500) continue;
    const same = byStatement.get(statement);
    if (same) {
      // one statement, several matches (one per imported name): one import
      for (const n of names) if (!same.names.includes(n)) same.names.push(n);
      continue;
    }
    if (names.length === 0 && statementNode && grammar.spec.importNames) names.push(...grammar.spec.importNames(statementNode));
    const draft = { source, names: [...new Set(names)], kind, line };
    byStatement.set(statement, draft);
    out.push(draft);
    if (out.length >= MAX_IMPORTS) break;
  }
  return out;
}
