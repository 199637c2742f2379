import { javascript, tsx, typescript } from './javascript.js';
import { c, cpp } from './c-family.js';
import { csharp } from './csharp.js';
import { go } from './go.js';
import { java } from './java.js';
import { php } from './php.js';
import { python } from './python.js';
import { ruby } from './ruby.js';
import { rust } from './rust.js';
import type { LanguageSpec } from './spec.js';

export type { LanguageSpec } from './spec.js';

/** Languages parsed with tree-sitter, by scry language id. One line per language. */
const REGISTRY: ReadonlyMap<string, LanguageSpec> = new Map(
  [
    typescript,
    tsx,
    javascript,
    python,
    go,
    rust,
    java,
    c,
    cpp,
    csharp,
    ruby,
    php,
  ].map((spec) => [spec.language, spec]),
);

export function languageSpec(language: string): LanguageSpec | undefined {
  return REGISTRY.get(language);
}

/** scry language ids that have a grammar. */
export function parsedLanguages(): string[] {
  return [...REGISTRY.keys()].sort();
}

/** Grammars a file of `language` may need: its own, or the script grammars of an HTML-like file. */
export function grammarLanguages(language: string): string[] {
  if (REGISTRY.has(language)) return [language];
  return EMBEDDING_SCRIPTS.has(language) ? ['javascript', 'typescript'] : [];
}

/** Languages whose files embed `<script>` blocks, chunked with the JavaScript/TypeScript grammars. */
const EMBEDDING_SCRIPTS = new Set(['vue', 'svelte', 'html']);
