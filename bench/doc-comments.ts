/**
 * Doc comments of functions, for the natural-language slice (bench/mine-nl-slice.ts): where a
 * function's doc comment or docstring is, its first sentence as a query, and the same file with
 * that comment blanked (spaces, line count unchanged, so every line number stays valid).
 * Pure functions over a file's lines; the span of the function comes from scry's own symbols.
 */

/** Lines [start, end] (0-based, inclusive) holding a function's doc comment, and its text. */
export interface DocComment {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

const BLOCK_END = /\*\/\s*$/;
const ATTRIBUTE = /^\s*(#\[|@[A-Za-z])/;

/**
 * The comment directly above line `def` (0-based): a `/** ... *\/` block or a run of `//` / `///`
 * lines, skipping attributes (`#[inline]`, `@Override`) between them. Undefined when the comment
 * shares a line with code (blanking it would change the code).
 */
export function commentAbove(lines: readonly string[], def: number): DocComment | undefined {
  let i = def - 1;
  while (i >= 0 && ATTRIBUTE.test(lines[i]!)) i--;
  if (i < 0) return undefined;
  const last = lines[i]!;
  if (BLOCK_END.test(last)) {
    let j = i;
    while (j >= 0 && !/\/\*/.test(lines[j]!)) j--;
    // the block must open at the start of its line and close at the end of its last: no code shares them
    if (j < 0 || !/^\s*\/\*/.test(lines[j]!) || (j < i && /\*\/./.test(lines[j]!))) return undefined;
    const text = lines
      .slice(j, i + 1)
      .map((l) => l.replace(/^\s*\/\*\*?/, '').replace(/\*\/\s*$/, '').replace(/^\s*\*\s?/, ''))
      .join('\n');
    return { start: j, end: i, text };
  }
  if (!/^\s*\/\//.test(last)) return undefined;
  let j = i;
  while (j - 1 >= 0 && /^\s*\/\//.test(lines[j - 1]!)) j--;
  const text = lines
    .slice(j, i + 1)
    .map((l) => l.replace(/^\s*\/\/[/!]?\s?/, ''))
    .join('\n');
  return { start: j, end: i, text };
}

/** Lines that start with `#` but document nothing: magic comments, tool directives, shebangs. */
const HASH_DIRECTIVE = /^\s*#(!|\s*(frozen_string_literal|encoding|rubocop|typed|-\*-|:nodoc:))/;

/**
 * The run of `#` comment lines directly above line `def` (0-based), Ruby's doc comment. Undefined
 * when there is none, or when it holds a directive (blanking it would change the program).
 */
export function hashCommentAbove(lines: readonly string[], def: number): DocComment | undefined {
  let j = def;
  while (j - 1 >= 0 && /^\s*#/.test(lines[j - 1]!)) j--;
  if (j === def) return undefined;
  const run = lines.slice(j, def);
  if (run.some((l) => HASH_DIRECTIVE.test(l))) return undefined;
  return { start: j, end: def - 1, text: run.map((l) => l.replace(/^\s*#+\s?/, '')).join('\n') };
}

const DOCSTRING_OPEN = /^\s*[rRuUbB]?("""|''')/;

/**
 * The docstring of the Python function or class defined at line `def` (0-based; decorators may
 * come first): the first statement after the signature's closing colon. Undefined without one,
 * or when nothing but the docstring is in the body (blanking it would leave no body).
 */
export function pythonDocstring(lines: readonly string[], def: number, end: number): DocComment | undefined {
  let i = def;
  while (i <= end && !/^\s*(async\s+)?(def|class)\s/.test(lines[i]!)) i++;
  while (i <= end && !/:\s*(#.*)?$/.test(lines[i]!)) i++;
  i++;
  while (i <= end && lines[i]!.trim() === '') i++;
  const open = i <= end ? DOCSTRING_OPEN.exec(lines[i]!) : null;
  if (!open) return undefined;
  const quote = open[1]!;
  const first = lines[i]!.slice(lines[i]!.indexOf(quote) + 3);
  let j = i;
  let body = first;
  if (first.includes(quote)) body = first.slice(0, first.indexOf(quote));
  else {
    const parts = [first];
    j++;
    while (j <= end && !lines[j]!.includes(quote)) parts.push(lines[j++]!);
    if (j > end) return undefined;
    parts.push(lines[j]!.slice(0, lines[j]!.indexOf(quote)));
    body = parts.join('\n');
    if (lines[j]!.slice(lines[j]!.indexOf(quote) + 3).trim() !== '') return undefined;
  }
  const rest = lines.slice(j + 1, end + 1).filter((l) => l.trim() !== '' && !/^\s*#/.test(l));
  if (rest.length === 0) return undefined;
  return { start: i, end: j, text: body };
}

/**
 * The query made of a doc comment: its first paragraph up to the first sentence end, tags,
 * markup and a leading repetition of the function's own name removed (`NewRouter returns a
 * router` → `Returns a router`: the name would make it an identifier query). Undefined when what
 * is left is trivial (under 4 words) or not a description (deprecation notes, "see X", a note
 * such as `NOTE: ...` or `Caution: ...`, an example, or a comment that opens with a tag: `@param x ...`, `@returns ...`; only
 * `@description`/`@summary` lead into a description, and their tag is dropped).
 */
export function firstSentence(doc: string, name: string): string | undefined {
  if (/\b(code generated|auto-?generated|do not edit)\b/i.test(doc)) return undefined;
  const para = (doc.trim().split(/\n\s*\n/)[0] ?? '').replace(/^@(description|desc|summary)\b\s*/i, '');
  if (para.startsWith('@')) return undefined;
  const cut = para.split(/\n\s*[@:]|\n\s*(Args|Arguments|Parameters|Returns|Example|Examples|Note|Usage|Panics|Errors|Safety)\s*:?\s*\n/)[0] ?? '';
  let text = cut
    .replace(/\{@\w+\s+([^}]*)\}/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\[`?([^\]`]+)`?\]/g, '$1')
    .replace(/:\w+:`~?([^`]+)`/g, '$1')
    .replace(/`+/g, '')
    .replace(/<\/?\w+[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const end = /[.!?](\s|$)/.exec(text);
  if (end) text = text.slice(0, end.index);
  const words = text.split(' ');
  if (words[0] && words[0].replace(/[^A-Za-z0-9_]/g, '').toLowerCase() === name.toLowerCase()) {
    words.shift();
    if (words[0] && /^(is|are)$/.test(words[0])) return undefined;
    text = words.join(' ');
    text = text.charAt(0).toUpperCase() + text.slice(1);
  }
  if (text.split(' ').length < 4 || text.length > 300) return undefined;
  if (/^(deprecated|see |todo|fixme|xxx|internal|private|inherit|override|copied|generated|auto-generated|nolint|#)/i.test(text)) return undefined;
  // a note (`NOTE:`, `PENDING:`, `Caution:`) or an example, not a description
  if (/^[A-Za-z]+\s*:(?!:)/.test(text) || /^(for example|for instance|e\.g\.)/i.test(text)) return undefined;
  if (/\b(auto-?generated|do not edit)\b/i.test(text)) return undefined;
  return text;
}

/** The file with lines [start, end] of each comment turned into spaces (line count and every other byte unchanged). */
export function blankComments(text: string, comments: readonly DocComment[]): string {
  const lines = text.split('\n');
  for (const c of comments) for (let i = c.start; i <= c.end; i++) lines[i] = lines[i]!.replace(/\S/g, ' ').replace(/\s+$/, (s) => (s.endsWith('\r') ? '\r' : ''));
  return lines.join('\n');
}

