import type { UseKind } from '../core/symbol.js';
import { grammarLanguages } from '../parse/languages/registry.js';
import type { IndexStore } from '../store/index-store.js';
import { hasOwnGrammar, ParsedFiles, type ParsedFilesOptions } from './parsed-files.js';

export { hasOwnGrammar };

/** Files whose text is scanned at most per query: a name used in more files is reported as truncated. */
export const MAX_CANDIDATE_FILES = 2000;

/** An indexed file the FTS index matched for a name. */
export interface NameCandidate {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly hash: string;
  /** `tree-sitter` when the index pass parsed it with a grammar; a fallback was chunked by line windows. */
  readonly parser: string;
}

export interface NameCandidates {
  /** Where the name is defined first, then code files, then other files; then by path (some may not hold the name: see holdingText). */
  readonly files: NameCandidate[];
  /** Files with a definition of exactly this name. */
  readonly definedIn: ReadonlySet<string>;
  /** True when the FTS index matched more than MAX_CANDIDATE_FILES files (the rest, by path, are not read). */
  readonly truncated: boolean;
}

/**
 * The files that may hold `name` as an identifier, from the FTS index (code and comment fields:
 * a mention in a comment is a `text` reference), which keeps identifiers whole. The FTS match is
 * case-insensitive and by stem: a caller reads each file's text in this order and skips those
 * that do not hold the name's exact characters (`holdsName`), so that a search stopping early
 * reads (and inflates) no more texts than it needs.
 */
export function nameCandidates(store: IndexStore, name: string): NameCandidates {
  const tokens = name.split(/[$]+/).filter(Boolean);
  // a quote doubled inside the FTS5 string: `related` asks for definitions named by a string (`declare module "node:fs"`)
  const match = `{body doc} : "${tokens.join(' ').replace(/"/g, '""')}"`;
  const found = store.read(() => store.search.filesMatching(match, MAX_CANDIDATE_FILES + 1));
  const definedIn = new Set(store.read(() => store.structure.byName(name, undefined, 1000)).filter((s) => s.name === name).map((s) => s.path));
  const files = found
    .slice(0, MAX_CANDIDATE_FILES)
    .map(({ id, path, language, hash, parser }) => ({ id, path, language, hash, parser }))
    .sort((a, b) => rankFile(a, definedIn) - rankFile(b, definedIn) || a.path.localeCompare(b.path));
  return { files, definedIn, truncated: found.length > MAX_CANDIDATE_FILES };
}

/** The stored text of a candidate when it holds `name` exactly; undefined otherwise (a stem or case match only). */
export function holdingText(store: IndexStore, file: NameCandidate, name: string): string | undefined {
  const text = store.read(() => store.content.text(file.hash));
  return text !== undefined && text.includes(name) ? text : undefined;
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
export async function parseNameUses(store: IndexStore, file: NameCandidate, name: string, text: string, options: ParsedFilesOptions = {}): Promise<ReadonlyMap<number, UseKind> | undefined> {
  const files = new ParsedFiles(store, options);
  try {
    return await files.uses(file, name, text);
  } finally {
    files.close();
  }
}
