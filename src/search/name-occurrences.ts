import type { UseKind } from '../core/symbol.js';
import { loadGrammars } from '../parse/grammars.js';
import { collectNameUses, unpackUses } from '../parse/name-uses.js';
import { grammarLanguages } from '../parse/languages/registry.js';
import type { IndexStore } from '../store/index-store.js';

/** Files whose text is scanned at most per query: a name used in more files is reported as truncated. */
export const MAX_CANDIDATE_FILES = 2000;

/** An indexed file that holds a name's exact bytes. */
export interface NameCandidate {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly hash: string;
  /** `tree-sitter` when the index pass parsed it with a grammar; a fallback was chunked by line windows. */
  readonly parser: string;
}

export interface NameCandidates {
  /** Where the name is defined first, then code files, then other files; then by path. */
  readonly files: NameCandidate[];
  /** Files with a definition of exactly this name. */
  readonly definedIn: ReadonlySet<string>;
  /** True when the FTS index matched more than MAX_CANDIDATE_FILES files (the rest, by path, are not read). */
  readonly truncated: boolean;
}

/**
 * The files that may hold `name` as an identifier, from the FTS index (code and comment fields:
 * a mention in a comment is a `text` reference), which keeps identifiers whole; the FTS match is
 * case-insensitive and by stem, so only the files whose stored text holds the name's exact bytes
 * are kept.
 */
export function nameCandidates(store: IndexStore, name: string): NameCandidates {
  const tokens = name.split(/[$]+/).filter(Boolean);
  const match = `{body doc} : "${tokens.join(' ')}"`;
  const found = store.read(() => store.search.filesMatching(match, MAX_CANDIDATE_FILES + 1));
  const definedIn = new Set(store.read(() => store.structure.byName(name, undefined, 1000)).filter((s) => s.name === name).map((s) => s.path));
  const kept = found.slice(0, MAX_CANDIDATE_FILES);
  const holding = store.read(() => store.content.hashesContaining([...new Set(kept.map((c) => c.hash))], name));
  const files = kept
    .filter((c) => holding.has(c.hash))
    .map(({ id, path, language, hash, parser }) => ({ id, path, language, hash, parser }))
    .sort((a, b) => rankFile(a, definedIn) - rankFile(b, definedIn) || a.path.localeCompare(b.path));
  return { files, definedIn, truncated: found.length > MAX_CANDIDATE_FILES };
}

/** True when a file's language has a grammar of its own: its identifiers can be classified by parsing it. */
export function hasOwnGrammar(language: string): boolean {
  return grammarLanguages(language).includes(language);
}

function rankFile(f: { path: string; language: string }, definedIn: ReadonlySet<string>): number {
  if (definedIn.has(f.path)) return 0;
  return grammarLanguages(f.language).length > 0 ? 1 : 2;
}

/**
 * Offset → kind of each identifier occurrence of `name` in a file's text, from a parse now (with
 * the definitions and imports the index holds for the file); undefined when the file's language
 * has no grammar of its own or the grammar does not load.
 */
export async function parseNameUses(store: IndexStore, file: NameCandidate, name: string, text: string): Promise<Map<number, UseKind> | undefined> {
  if (!hasOwnGrammar(file.language)) return undefined;
  const grammar = (await loadGrammars([file.language])).get(file.language);
  if (!grammar) return undefined;
  const tree = grammar.parser.parse(text);
  if (!tree) return undefined;
  try {
    const symbols = store.read(() => store.structure.inFile(file.path));
    const imports = store.read(() => store.structure.importsOf(file.path));
    const uses = collectNameUses(grammar, tree, text, symbols, imports, name).find((u) => u.name === name);
    return unpackUses(uses?.uses ?? '');
  } finally {
    tree.delete();
  }
}
