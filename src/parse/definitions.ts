/**
 * Best-effort definition finding for the line-window chunker: which names does a line define?
 * Regular expressions per language family, anchored at the start of a line, so that a window that
 * defines `parseConfig` can be told apart from one that calls it. The tree-sitter chunkers
 * replace this for the languages they parse; it stays the fallback for the rest.
 */

const NOT_NAMES = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'with', 'elif', 'else', 'new', 'await', 'typeof', 'sizeof', 'defined']);

const JS = [
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)/,
  /^\s+(?:(?:public|private|protected|static|readonly|override|abstract|async|get|set)\s+)*\*?([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\([^)]*\)?\s*(?::\s*[^{=]+)?\{\s*$/,
  /^\s*([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?function\b/,
];
const PY = [/^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/, /^\s*class\s+([A-Za-z_]\w*)/];
const GO = [/^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/, /^\s*type\s+([A-Za-z_]\w*)\s+(?:struct|interface)\b/];
const RUST = [/^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|mod|type|union)\s+([A-Za-z_]\w*)/, /^\s*impl(?:<[^>]*>)?\s+(?:[\w:]+\s+for\s+)?([A-Za-z_]\w*)/];
const JVM = [
  /^\s*(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|data|partial|override)\s+)*(?:class|interface|enum|record|struct|object|trait)\s+([A-Za-z_]\w*)/,
  /^\s*(?:(?:public|private|protected|internal|static|final|abstract|synchronized|override|virtual|async|suspend)\s+)+[\w<>[\],.?\s]*?\s([A-Za-z_]\w*)\s*\(/,
  /^\s*(?:(?:private|public|protected|internal|override|suspend)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?([A-Za-z_]\w*)/,
];
const RUBY = [/^\s*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)/, /^\s*(?:class|module)\s+([A-Z]\w*)/];
const PHP = [/^\s*(?:(?:public|private|protected|static|final|abstract)\s+)*function\s+&?([A-Za-z_]\w*)/, /^\s*(?:abstract\s+|final\s+)?(?:class|interface|trait|enum)\s+([A-Za-z_]\w*)/];
const C = [/^(?:[A-Za-z_][\w:<>,*&\s]*?[\s*&])?([A-Za-z_][\w:~]*)\s*\([^;]*$/, /^\s*(?:typedef\s+)?(?:struct|class|enum|union|namespace)\s+([A-Za-z_]\w*)\s*(?:[:{]|$)/];
const SHELL = [/^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{?/];

const BY_LANGUAGE: Record<string, readonly RegExp[]> = {
  typescript: JS, tsx: JS, javascript: JS, vue: JS, svelte: JS,
  python: PY, go: GO, rust: RUST,
  java: JVM, kotlin: JVM, scala: JVM, csharp: JVM, groovy: JVM, swift: JVM, dart: JVM,
  ruby: RUBY, php: PHP, c: C, cpp: C, objc: C, shell: SHELL,
};

/** The patterns for a language, or undefined when it has none. */
export function definitionPatterns(language: string): readonly RegExp[] | undefined {
  return BY_LANGUAGE[language];
}

/** The name a line defines, if it looks like a definition. */
export function definedName(line: string, patterns: readonly RegExp[]): string | undefined {
  if (line.length > 400) return undefined;
  for (const re of patterns) {
    const m = re.exec(line);
    if (m?.[1] && !NOT_NAMES.has(m[1])) return m[1];
  }
  return undefined;
}
