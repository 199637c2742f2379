import { EngineError } from '../core/errors.js';
import type { UseKind } from '../core/symbol.js';
import { loadGrammars } from '../parse/grammars.js';
import { collectNameUses, unpackUses } from '../parse/name-uses.js';
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
  /**
   * Files classified by parsing them now, because the index holds no identifier uses for them
   * (indexed by line windows although a grammar exists, e.g. over the parse budget, or indexed
   * before uses were stored). 0 when every file was read from the index.
   */
  readonly parsed: number;
  /** `lsp`: the language server's references of one definition; `name`: every occurrence of the name (set by the engine). */
  readonly resolution?: 'lsp' | 'name' | undefined;
  /** The server that answered (`typescript`, `python`...) when `resolution` is `lsp`. */
  readonly server?: string | undefined;
  /** Why a server did not answer, when one was configured. */
  readonly fallback?: string | undefined;
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

type Candidate = { id: number; path: string; language: string; hash: string };

/**
 * References to a name, by name (not type-resolved). Candidate files come from the FTS index (code
 * and comment fields: a mention in a comment is a `text` reference),
 * which keeps identifiers whole; each candidate's stored text is scanned for the name at word
 * boundaries, and each occurrence takes the kind the index stored for the identifier there
 * (`name_uses`, collected from the syntax tree when the file was indexed); an occurrence that is
 * no identifier is `text`. A file with a grammar but no stored uses is parsed now (`parsed`).
 * Files are ordered: where the name is defined first, then code, then other files, then by path.
 */
export async function findReferences(store: IndexStore, name: string, limit: number): Promise<ReferencesResult> {
  const n = checkReferenceQuery(name, limit);
  const tokens = n.split(/[$]+/).filter(Boolean);
  const match = `{body doc} : "${tokens.join(' ')}"`;
  const candidates = store.read(() => store.search.filesMatching(match, MAX_CANDIDATE_FILES + 1));
  const definedIn = new Set(store.read(() => store.structure.byName(n, undefined, 1000)).filter((s) => s.name === n).map((s) => s.path));
  // the FTS index matches case-insensitively and by stem: keep the files holding the name's exact bytes
  const holding = store.read(() => store.content.hashesContaining([...new Set(candidates.slice(0, MAX_CANDIDATE_FILES).map((c) => c.hash))], n));
  const ordered = candidates.slice(0, MAX_CANDIDATE_FILES).filter((c) => holding.has(c.hash)).sort((a, b) => rankFile(a, definedIn) - rankFile(b, definedIn) || a.path.localeCompare(b.path));
  const files: ReferenceGroup[] = [];
  let total = 0;
  let parsed = 0;
  let truncated = candidates.length > MAX_CANDIDATE_FILES;
  for (const file of ordered) {
    if (total >= limit) {
      truncated = true;
      break;
    }
    const text = store.read(() => store.content.text(file.hash));
    if (text === undefined) continue;
    const stored = store.read(() => store.structure.usesIn(file.id, n));
    let kinds: ReadonlyMap<number, UseKind> | undefined;
    if (stored !== undefined) kinds = unpackUses(stored);
    else if (grammarLanguages(file.language).includes(file.language)) {
      kinds = await parseUses(store, file, n, text);
      if (kinds) parsed++;
    }
    let refs = scanFile(text, n, kinds);
    if (refs.length === 0) continue;
    if (total + refs.length > limit) {
      refs = refs.slice(0, limit - total);
      truncated = true;
    }
    total += refs.length;
    files.push({ path: file.path, language: file.language, references: refs });
  }
  return { name: n, files, total, truncated, parsed };
}

/** The uses of `name` in a file the index holds none for, from a parse now; undefined without a grammar. */
async function parseUses(store: IndexStore, file: Candidate, name: string, text: string): Promise<Map<number, UseKind> | undefined> {
  const grammar = (await loadGrammars([file.language])).get(file.language);
  if (!grammar) return undefined;
  const tree = grammar.parser.parse(text);
  if (!tree) return undefined;
  try {
    const symbols = store.read(() => store.structure.inFile(file.path));
    const imports = store.read(() => store.structure.importsOf(file.path));
    const uses = collectNameUses(grammar, tree, text, symbols, imports).find((u) => u.name === name);
    return unpackUses(uses?.uses ?? '');
  } finally {
    tree.delete();
  }
}

function rankFile(f: { path: string; language: string }, definedIn: ReadonlySet<string>): number {
  if (definedIn.has(f.path)) return 0;
  return grammarLanguages(f.language).length > 0 ? 1 : 2;
}

/** Occurrences of `name` at identifier boundaries, with the kind stored for the identifier there (else `text`). */
function scanFile(text: string, name: string, kinds: ReadonlyMap<number, UseKind> | undefined): Reference[] {
  const re = new RegExp(`(?<![\\p{L}\\p{N}_$])${name.replace(/\$/g, '\\$')}(?![\\p{L}\\p{N}_$])`, 'gu');
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const out: Reference[] = [];
  let line = 0;
  for (const m of text.matchAll(re)) {
    const at = m.index;
    while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= at) line++;
    const kind = kinds?.get(at) ?? 'text';
    const lineText = text.slice(lineStarts[line], (lineStarts[line + 1] ?? text.length + 1) - 1).trim();
    out.push({ line: line + 1, column: at - lineStarts[line]! + 1, kind, text: lineText.length > 200 ? `${lineText.slice(0, 199)}…` : lineText });
  }
  return out.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.line - b.line || a.column - b.column);
}
