import type { LineTable } from './line-table.js';
import { joinKey, NO_CHILDREN, type KeyNode, type Span } from './config-keys.js';

/** Scanner state carried across lines: inside a `"""`/`'''` string, or inside brackets. */
interface TomlState {
  ml: string | undefined;
  depth: number;
  ok: boolean;
}

interface TomlNode {
  readonly path: string;
  readonly parent: string | undefined;
  readonly first: number;
  last: number;
  readonly element: boolean;
  readonly keys: TomlNode[];
}

const toKeyNode = (n: TomlNode): KeyNode => ({ ...n, children: n.keys.length > 0 ? () => n.keys.map(toKeyNode) : NO_CHILDREN });

/**
 * No TOML parser in reach keeps positions, so this is a line scanner. A statement is a `[table]`
 * or `[[array]]` header or a `key = value` whose value may continue over lines (multi-line strings,
 * arrays, inline tables); brackets and `#` inside strings are ignored. Any line that is none of
 * these, or a value left open at the end, rejects the file (then it is cut into windows).
 */
export function tomlRegions(table: LineTable): Span[] | undefined {
  const st: TomlState = { ml: undefined, depth: 0, ok: true };
  const top: TomlNode[] = [];
  const arrays = new Map<string, number>();
  let section: TomlNode | undefined;
  let open: TomlNode | undefined;
  for (let l = 0; l < table.count; l++) {
    const line = table.line(l);
    if (open && (st.ml !== undefined || st.depth > 0)) {
      scanTomlValue(line, 0, st);
      open.last = l;
      if (section) section.last = l;
    } else {
      const t = line.trimStart();
      if (t === '' || t.startsWith('#')) continue;
      if (t.startsWith('[')) {
        section = tomlHeader(t, arrays, l);
        if (!section) return undefined;
        top.push(section);
        continue;
      }
      open = tomlKeyValue(line, line.length - t.length, l, section, st);
      if (!open) return undefined;
      if (section) {
        section.keys.push(open);
        section.last = l;
      } else top.push(open);
    }
    if (!st.ok) return undefined;
  }
  if (!st.ok || st.ml !== undefined || st.depth > 0) return undefined;
  return [{ nodes: top.map(toKeyNode), start: 0, end: table.count - 1 }];
}

function tomlKeyValue(line: string, from: number, l: number, section: TomlNode | undefined, st: TomlState): TomlNode | undefined {
  const key = parseTomlKey(line, from);
  if (!key || line[key.end] !== '=') return undefined;
  const value = line.slice(key.end + 1).trim();
  if (value === '' || value.startsWith('#')) return undefined;
  let parent = section?.path;
  for (const seg of key.segments.slice(0, -1)) parent = joinKey(parent, seg);
  scanTomlValue(line, key.end + 1, st);
  return { path: joinKey(parent, key.segments[key.segments.length - 1]!), parent, first: l, last: l, element: false, keys: [] };
}

/** A header line (leading blanks trimmed) → its section, with the path resolved through arrays of tables. */
function tomlHeader(line: string, arrays: Map<string, number>, l: number): TomlNode | undefined {
  const isArray = line.startsWith('[[');
  const key = parseTomlKey(line, isArray ? 2 : 1);
  const close = isArray ? ']]' : ']';
  if (!key || !line.startsWith(close, key.end)) return undefined;
  const rest = line.slice(key.end + close.length).trim();
  if (rest !== '' && !rest.startsWith('#')) return undefined;
  let path: string | undefined;
  let parent: string | undefined;
  key.segments.forEach((seg, i) => {
    parent = path;
    path = joinKey(path, seg);
    const n = arrays.get(path);
    if (i < key.segments.length - 1) {
      if (n !== undefined) path += `[${n - 1}]`;
    } else if (isArray) {
      arrays.set(path, (n ?? 0) + 1);
      parent = path;
      path += `[${n ?? 0}]`;
    }
  });
  return { path: path!, parent, first: l, last: l, element: isArray, keys: [] };
}

/** A dotted key starting at `from`: its segments (quotes removed) and the index after it and its trailing blanks. */
function parseTomlKey(line: string, from: number): { segments: string[]; end: number } | undefined {
  const segments: string[] = [];
  const bare = /[^\s."'=[\]#{},]+/y; // per call: a sticky regex carries lastIndex state
  let i = from;
  const skipBlanks = (): void => {
    while (line[i] === ' ' || line[i] === '\t') i++;
  };
  for (;;) {
    skipBlanks();
    if (line[i] === '"' || line[i] === "'") {
      const end = stringEnd(line, i);
      if (end < 0) return undefined;
      segments.push(line.slice(i + 1, end - 1));
      i = end;
    } else {
      bare.lastIndex = i;
      const m = bare.exec(line);
      if (!m) return undefined;
      segments.push(m[0]);
      i += m[0].length;
    }
    skipBlanks();
    if (line[i] !== '.') return { segments, end: i };
    i++;
  }
}

/** Index after the single-line string opened by the quote at `from`, or -1 if it is not closed. */
function stringEnd(line: string, from: number): number {
  const q = line[from];
  for (let i = from + 1; i < line.length; i++) {
    if (q === '"' && line[i] === '\\') i++;
    else if (line[i] === q) return i + 1;
  }
  return -1;
}

/** Advances `st` over the value text of `line` from `from`: strings, comments, bracket depth. */
function scanTomlValue(line: string, from: number, st: TomlState): void {
  let i = from;
  while (i < line.length) {
    if (st.ml !== undefined) {
      const close = multilineEnd(line, i, st.ml);
      if (close < 0) return;
      st.ml = undefined;
      i = close;
      continue;
    }
    const c = line[i]!;
    if (c === '#') return;
    if (c === '"' || c === "'") {
      if (line.startsWith(c.repeat(3), i)) {
        st.ml = c.repeat(3);
        i += 3;
        continue;
      }
      i = stringEnd(line, i);
      if (i < 0) st.ok = false;
      if (i < 0) return;
      continue;
    }
    if (c === '[' || c === '{') st.depth++;
    else if ((c === ']' || c === '}') && --st.depth < 0) st.ok = false;
    i++;
  }
}

/** Index after the closing delimiter of a multi-line string, or -1 if it continues past this line. */
function multilineEnd(line: string, from: number, delim: string): number {
  for (let i = from; i < line.length; i++) {
    if (delim === '"""' && line[i] === '\\') i++;
    else if (line.startsWith(delim, i)) {
      // up to two quotes right before the delimiter are content: `"""a""""` ends in a"
      let j = i + 3;
      while (j < line.length && j < i + 5 && line[j] === delim[0]) j++;
      return j;
    }
  }
  return -1;
}
