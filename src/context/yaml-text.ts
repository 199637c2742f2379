/**
 * The few YAML forms a context pack is written in. Every value goes through `scalar`, which picks
 * a plain word, a double-quoted string, or a literal block scalar (`|`) whose content is indented
 * under its key, so no content (code with colons, dashes, quotes, odd indentation) can change the
 * structure around it. The output parses as YAML 1.2 with the values unchanged, except that
 * `\r\n` and lone `\r` line breaks become `\n`.
 */

const RESERVED = /^(?:true|false|null|yes|no|on|off|y|n|~)$/i;
const NUMBER_LIKE = /^[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$|^0[xob]/i;

/** A string that reads back as the same string when written bare. */
function isPlain(s: string): boolean {
  return (
    /^[A-Za-z0-9_/][\w./@+:#,()' -]*$/.test(s) &&
    !/\s$/.test(s) &&
    !/:(?: |$)| #/.test(s) &&
    !RESERVED.test(s) &&
    !NUMBER_LIKE.test(s)
  );
}

/** A single-line value: bare when safe, else double-quoted (JSON escapes are valid YAML escapes). */
export function inlineScalar(s: string): string {
  return isPlain(s) ? s : JSON.stringify(s);
}

/**
 * A literal block scalar for a mapping value whose key sits at column `keyIndent`: header
 * (`|`, with indentation indicator `2` when the content starts with a space, and the chomping
 * indicator that keeps the trailing line breaks exact) and the content at `keyIndent + 2`.
 */
export function blockScalar(text: string, keyIndent: number): string {
  const body = text.split(/\r\n|\r|\n/);
  const lastText = findLastIndex(body, (l) => l !== '');
  const trailing = body.length - 1 - lastText;
  let chomp: string;
  if (trailing === 0) chomp = '-';
  else if (trailing === 1 && lastText >= 0) chomp = '';
  else chomp = '+';
  if (chomp !== '-') body.pop();
  const leading = /^[ \t\r\n]*/.exec(text)?.[0] ?? '';
  const indicator = leading.includes(' ') ? '2' : '';
  const pad = ' '.repeat(keyIndent + 2);
  const lines = body.map((l) => (l === '' ? '' : pad + l));
  return `|${indicator}${chomp}\n${lines.join('\n')}`;
}

function findLastIndex<T>(list: readonly T[], test: (t: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i]!)) return i;
  return -1;
}

/** The value part of `key: value` for a key at column `keyIndent`: inline when one line, else a block. */
export function scalar(value: string | number, keyIndent: number): string {
  if (typeof value === 'number') return String(value);
  if (!/[\r\n]/.test(value)) return inlineScalar(value);
  // parsers read whitespace-only lines after the last text as trailing blank lines and chomp
  // them: such a value (or one that is all blank lines) is written quoted instead
  const lines = value.split(/\r\n|\r|\n/);
  const lastText = findLastIndex(lines, (l) => /\S/.test(l));
  if (lastText < 0 || lines.slice(lastText + 1).some((l) => l !== '')) return JSON.stringify(lines.join('\n'));
  return blockScalar(value, keyIndent);
}

/** `key: value\n` at column `indent`, or `- key: value\n` when `item` (the first key of a list item). */
export function field(key: string, value: string | number, indent: number, item = false): string {
  const lead = item ? `${' '.repeat(indent - 2)}- ` : ' '.repeat(indent);
  return `${lead}${key}: ${scalar(value, indent)}\n`;
}

/** A list of single-line strings under `key` (multi-line entries are written quoted with escapes). */
export function stringList(key: string, values: readonly string[], indent: number): string {
  if (values.length === 0) return '';
  const pad = ' '.repeat(indent);
  return `${pad}${key}:\n${values.map((v) => `${pad}  - ${inlineScalar(v)}\n`).join('')}`;
}
