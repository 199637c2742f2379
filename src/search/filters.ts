import { createRequire } from 'node:module';
import type picomatchType from 'picomatch';
import { CONTENT_TYPES, type ContentType } from '../core/file.js';
import { EngineError } from '../core/errors.js';
import { knownLanguages } from '../discover/language.js';
import type { FtsFilter } from '../store/search-repo.js';

const LANGUAGE_ALIASES: Record<string, string> = {
  ts: 'typescript', js: 'javascript', py: 'python', rb: 'ruby', rs: 'rust', md: 'markdown',
  golang: 'go', 'c++': 'cpp', 'c#': 'csharp', cs: 'csharp', sh: 'shell', bash: 'shell', yml: 'yaml',
  kt: 'kotlin', jsx: 'javascript',
};

const GLOB_CHARS = /[*?[\]{}()!]/;

/** User-facing filters of a search. Every field is optional; values are OR'ed within a field. */
export interface SearchFilters {
  /** Path globs (`src/**\/*.ts`, `*.md`) or plain directory prefixes (`src/store`). */
  readonly path?: string | readonly string[] | undefined;
  /** Languages (`typescript`, or aliases such as `ts`, `py`). */
  readonly language?: string | readonly string[] | undefined;
  /** Content types: code, docs, config, text. */
  readonly type?: ContentType | string | readonly string[] | undefined;
  /**
   * Document fields that must have a value (issue 22): markdown frontmatter and mail headers,
   * e.g. `{ status: 'open', tags: 'auth' }`; a list field matches when it holds the value.
   */
  readonly where?: Readonly<Record<string, string>> | undefined;
}

const FIELD = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;


const list = (v: string | readonly string[] | undefined): string[] =>
  v === undefined ? [] : (typeof v === 'string' ? [v] : [...v]).map((s) => s.trim()).filter((s) => s !== '');

/** picomatch is loaded on the first glob filter only (start-up time of `scry search`). */
let picomatchModule: typeof picomatchType | undefined;
const loadPicomatch = (): typeof picomatchType => (picomatchModule ??= createRequire(import.meta.url)('picomatch') as typeof picomatchType);

/** Compiles a path pattern: globs via picomatch (a slash-less glob matches basenames), plain text as a prefix. */
export function pathMatcher(patterns: readonly string[]): ((path: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  const tests = patterns.map((raw) => {
    const p = raw.replace(/^\.\//, '').replace(/\/+$/, '');
    if (!GLOB_CHARS.test(p)) return (path: string) => path === p || path.startsWith(`${p}/`);
    return loadPicomatch()(p, { dot: true, basename: !p.includes('/') });
  });
  return (path) => tests.some((t) => t(path));
}

/** Validates and normalises filters into what the store needs. */
export function compileFilters(filters: SearchFilters): FtsFilter {
  const contentTypes = list(filters.type).map((t) => t.toLowerCase());
  for (const t of contentTypes) {
    if (!(CONTENT_TYPES as readonly string[]).includes(t)) {
      throw new EngineError('INVALID_ARGUMENT', { name: 'type', reason: `unknown content type "${t}"; use one of ${CONTENT_TYPES.join(', ')}` });
    }
  }
  const languages = list(filters.language).map((l) => LANGUAGE_ALIASES[l.toLowerCase()] ?? l.toLowerCase());
  const known = knownLanguages();
  for (const l of languages) {
    if (!known.includes(l)) throw new EngineError('INVALID_ARGUMENT', { name: 'language', reason: `unknown language "${l}"; use one of ${known.join(', ')}` });
  }
  const where = Object.entries(filters.where ?? {}).map(([field, value]) => {
    if (!FIELD.test(field) || typeof value !== 'string') throw new EngineError('INVALID_ARGUMENT', { name: 'where', reason: `field "${field}" must be letters, digits, '_', '.', '-' with a string value` });
    return { field, value };
  });
  return {
    languages: languages.length > 0 ? languages : undefined,
    contentTypes: contentTypes.length > 0 ? contentTypes : undefined,
    pathMatch: pathMatcher(list(filters.path)),
    ...(where.length > 0 ? { where } : {}),
  };
}
