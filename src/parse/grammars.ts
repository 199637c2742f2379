import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TreeSitter from 'web-tree-sitter';
import type { Language, Parser, Query } from 'web-tree-sitter';
import { languageSpec, type LanguageSpec } from './languages/registry.js';

/**
 * Loaded tree-sitter grammars. The WASM runtime is initialised once per thread and each grammar
 * is compiled once per thread (tens of milliseconds each); this is the one documented module-level
 * cache of `parse/` (STYLE.md habit 5), emptied by `resetGrammarCache()` in tests.
 *
 * Grammars come from `@repomix/tree-sitter-wasms` (ABI 14–15), run by `web-tree-sitter` 0.27
 * (ABI 13–15); both are pinned exactly in package.json because a grammar built for a newer ABI
 * than the runtime's fails to load. Nothing is ever downloaded.
 */
export interface LoadedGrammar {
  readonly spec: LanguageSpec;
  readonly language: Language;
  readonly parser: Parser;
  /** Definitions, imports and documentation (comments, docstrings) patterns in one query: one traversal of the tree. */
  readonly query: Query;
  /** Patterns below this index are definitions; the rest are imports, then documentation. */
  readonly importsFrom: number;
  /** Patterns from this index on capture comments (`@comment`) and docstrings (`@doc`): the FTS `doc` field. */
  readonly docFrom: number;
  /**
   * Captures every identifier node (`@id`, the spec's `identifiers` this grammar has) and every
   * call node (`@call`, its `calls`) in one traversal; undefined without identifier types.
   */
  readonly identifiers: Query | undefined;
}

interface GrammarState {
  runtime?: Promise<typeof TreeSitter> | undefined;
  readonly loaded: Map<string, Promise<LoadedGrammar | undefined>>;
  /** Languages whose grammar failed to load, with the reason: reported once, shown by `status`. */
  readonly failures: Map<string, string>;
}

let state: GrammarState = { loaded: new Map(), failures: new Map() };

/** Where the grammar `.wasm` files are. */
export function grammarDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@repomix/tree-sitter-wasms/package.json')), 'out');
}

async function runtime(): Promise<typeof TreeSitter> {
  state.runtime ??= import('web-tree-sitter').then(async (m) => {
    await m.Parser.init();
    return m;
  });
  return state.runtime;
}

async function load(spec: LanguageSpec): Promise<LoadedGrammar> {
  const ts = await runtime();
  const language = await ts.Language.load(join(grammarDir(), `tree-sitter-${spec.grammar}.wasm`));
  const parser = new ts.Parser();
  parser.setLanguage(language);
  const pattern = (types: readonly string[], name: string): string => {
    const known = types.filter((t) => language.idForNodeType(t, true) !== null);
    return known.length > 0 ? `[${known.map((t) => `(${t})`).join(' ')}] @${name}` : '';
  };
  const count = (source: string): number => {
    const q = new ts.Query(language, source);
    const n = q.patternCount();
    q.delete();
    return n;
  };
  const code = `${spec.definitions}\n${spec.imports ?? ''}`;
  const importsFrom = count(spec.definitions);
  const docFrom = count(code);
  const query = new ts.Query(language, `${code}\n${pattern(spec.comments, 'comment')}\n${spec.docstrings ?? ''}`);
  const ids = pattern(spec.identifiers, 'id');
  const identifiers = ids ? new ts.Query(language, `${ids}\n${pattern(spec.calls, 'call')}`) : undefined;
  return { spec, language, parser, query, importsFrom, docFrom, identifiers };
}

/**
 * The grammar for a scry language id, loading it on first use; undefined when the language has
 * no grammar or its grammar failed to load (the failure is recorded in `grammarFailures()`).
 */
export function loadGrammar(language: string): Promise<LoadedGrammar | undefined> {
  const spec = languageSpec(language);
  if (!spec) return Promise.resolve(undefined);
  let pending = state.loaded.get(spec.grammar);
  if (!pending) {
    const current = state;
    pending = load(spec).catch((err: unknown) => {
      current.failures.set(spec.language, err instanceof Error ? err.message : String(err));
      return undefined;
    });
    state.loaded.set(spec.grammar, pending);
  }
  return pending;
}

/** Grammars that are loaded already, by scry language id: what a synchronous parse can use. */
export async function loadGrammars(languages: Iterable<string>): Promise<Map<string, LoadedGrammar>> {
  const out = new Map<string, LoadedGrammar>();
  for (const language of new Set(languages)) {
    const grammar = await loadGrammar(language);
    if (grammar) out.set(language, grammar);
  }
  return out;
}

/** Languages whose grammar failed to load in this thread, with the error. */
export function grammarFailures(): ReadonlyMap<string, string> {
  return state.failures;
}

/** Forgets every loaded grammar and failure (tests). */
export function resetGrammarCache(): void {
  state = { loaded: new Map(), failures: new Map() };
}
