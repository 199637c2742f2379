import type { ContentType } from '../core/file.js';

interface LanguageInfo {
  readonly language: string;
  readonly contentType: ContentType;
}

const code = (language: string): LanguageInfo => ({ language, contentType: 'code' });
const docs = (language: string): LanguageInfo => ({ language, contentType: 'docs' });
const config = (language: string): LanguageInfo => ({ language, contentType: 'config' });

const EXTENSIONS: Record<string, LanguageInfo> = {
  ts: code('typescript'), mts: code('typescript'), cts: code('typescript'), tsx: code('tsx'),
  js: code('javascript'), mjs: code('javascript'), cjs: code('javascript'), jsx: code('javascript'),
  py: code('python'), pyi: code('python'), go: code('go'), rs: code('rust'), java: code('java'),
  kt: code('kotlin'), kts: code('kotlin'), scala: code('scala'), swift: code('swift'),
  c: code('c'), h: code('c'), cc: code('cpp'), cpp: code('cpp'), cxx: code('cpp'), hpp: code('cpp'),
  hh: code('cpp'), hxx: code('cpp'), cs: code('csharp'), rb: code('ruby'), php: code('php'),
  lua: code('lua'), pl: code('perl'), pm: code('perl'), r: code('r'), dart: code('dart'),
  ex: code('elixir'), exs: code('elixir'), erl: code('erlang'), hs: code('haskell'), ml: code('ocaml'),
  clj: code('clojure'), zig: code('zig'), nim: code('nim'), jl: code('julia'), vue: code('vue'),
  svelte: code('svelte'), sh: code('shell'), bash: code('shell'), zsh: code('shell'), fish: code('shell'),
  ps1: code('powershell'), sql: code('sql'), proto: code('protobuf'), graphql: code('graphql'),
  gql: code('graphql'), html: code('html'), htm: code('html'), css: code('css'), scss: code('scss'),
  less: code('less'), m: code('objc'), mm: code('objc'), groovy: code('groovy'), tf: code('hcl'),
  hcl: code('hcl'), cmake: code('cmake'), gradle: code('groovy'),
  md: docs('markdown'), markdown: docs('markdown'), mdx: docs('markdown'), rst: docs('rst'),
  adoc: docs('asciidoc'), txt: docs('text'), tex: docs('latex'),
  pdf: docs('pdf'), eml: docs('email'), mbox: docs('mbox'),
  json: config('json'), jsonc: config('json'), json5: config('json'), yaml: config('yaml'),
  yml: config('yaml'), toml: config('toml'), ini: config('ini'), cfg: config('ini'),
  conf: config('ini'), properties: config('properties'), xml: config('xml'), plist: config('xml'),
  env: config('dotenv'),
};

const FILENAMES: Record<string, LanguageInfo> = {
  makefile: code('make'), gnumakefile: code('make'), dockerfile: code('dockerfile'),
  containerfile: code('dockerfile'), rakefile: code('ruby'), gemfile: code('ruby'),
  vagrantfile: code('ruby'), jenkinsfile: code('groovy'), 'cmakelists.txt': code('cmake'),
  '.bashrc': code('shell'), '.zshrc': code('shell'), '.profile': code('shell'),
  '.gitignore': config('ignore'), '.scryignore': config('ignore'), '.dockerignore': config('ignore'),
  '.editorconfig': config('ini'), '.gitattributes': config('ignore'), '.env.example': config('dotenv'),
  '.env.sample': config('dotenv'), '.env.template': config('dotenv'), license: docs('text'),
  readme: docs('text'), changelog: docs('text'), authors: docs('text'), copying: docs('text'),
};

/**
 * The tables as Maps: a lookup with a string fresh from readdir hashes it once, where an object
 * key would first be internalized (a third of the no-change rescan's language detection), and a
 * name like `constructor` finds nothing instead of Object.prototype's.
 */
const BY_EXTENSION = new Map(Object.entries(EXTENSIONS));
const BY_FILENAME = new Map(Object.entries(FILENAMES));

const SHEBANG: ReadonlyArray<[RegExp, LanguageInfo]> = [
  [/\b(?:python[0-9.]*|pypy[0-9.]*)\b/, code('python')],
  [/\b(?:node|nodejs|bun|deno)\b/, code('javascript')],
  [/\b(?:ts-node|tsx)\b/, code('typescript')],
  [/\b(?:bash|sh|zsh|dash|ksh|fish)\b/, code('shell')],
  [/\bruby\b/, code('ruby')],
  [/\bperl\b/, code('perl')],
  [/\bphp\b/, code('php')],
  [/\blua\b/, code('lua')],
];

const TEXT: LanguageInfo = { language: 'text', contentType: 'text' };

/**
 * Language by extension, then by well-known file name, then by shebang line.
 * Anything else is plain `text` (still indexed with the line-window chunker).
 */
export function detectLanguage(path: string, firstLine?: string): LanguageInfo {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const byName = BY_FILENAME.get(base);
  if (byName) return byName;
  const dot = base.lastIndexOf('.');
  if (dot > 0) {
    const byExt = BY_EXTENSION.get(base.slice(dot + 1));
    if (byExt) return byExt;
  }
  if (base.startsWith('dockerfile')) return code('dockerfile');
  if (firstLine?.startsWith('#!')) {
    for (const [re, info] of SHEBANG) if (re.test(firstLine)) return info;
  }
  return TEXT;
}

/** Languages whose bytes are not their text: read through an extractor (discover/formats), not decoded. */
const EXTRACTED = new Set(['pdf', 'email', 'mbox']);

/**
 * Whether a file of `language` is a document read through an extractor (PDF, e-mail, and HTML
 * when `html` is `text`) rather than decoded as text.
 */
export function isExtracted(language: string, html: 'source' | 'text' = 'source'): boolean {
  return EXTRACTED.has(language) || (html === 'text' && language === 'html');
}

/** Languages a user can filter by (`--lang`), for validation and help text. */
export function knownLanguages(): string[] {
  const all = new Set<string>(['text']);
  for (const info of [...BY_EXTENSION.values(), ...BY_FILENAME.values()]) all.add(info.language);
  return [...all].sort();
}
