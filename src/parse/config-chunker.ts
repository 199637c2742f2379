import { createScanner, parseTree, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { isMap, isNode, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { ChunkDraft } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import { LineTable } from './line-table.js';
import { joinKey, type KeyNode, type Span } from './config-keys.js';
import { tomlRegions } from './toml-keys.js';
import { splitLines } from './window-chunker.js';

/**
 * Key path conventions (stored in `symbol`, `container` and `defines`, so users search by them):
 * - object keys join with `.`: `services.api.retry`; quoted keys keep their text without quotes,
 *   a key containing a dot is not escaped (ambiguous but rare, and still findable by its words);
 * - array elements are addressed by index, always: `jobs[0]`, `jobs[0].steps[2]` — never by a
 *   `name`/`id` field, because those are neither unique nor present on every element. Only arrays
 *   holding at least one object or array are split by element; arrays of scalars are leaves;
 * - TOML `[[bin]]` is an array of tables, so its sections are `bin[0]`, `bin[1]`; a nested
 *   `[[a.b]]` indexes into the latest `a` element, as TOML itself resolves it: `a[1].b[0]`;
 * - YAML documents after the first are prefixed with their index in the stream: `[1].kind`.
 */

interface Ctx {
  readonly table: LineTable;
  readonly config: ChunkConfig;
  readonly out: ChunkDraft[];
}

/** Nested values are split at most this deep; deeper ones fall back to line windows. */
const MAX_SPLIT_DEPTH = 8;
/** jsonc-parser recurses per nesting level and overflows the stack at a few thousand. */
const MAX_JSON_DEPTH = 512;

/**
 * Config files (JSON/JSONC, YAML, TOML) by key. Each top-level key is a chunk (kind `key`, symbol
 * its path) from the comments above it to the end of its value; a value over `maxBytes` or
 * `windowLines` is split by its nested keys (up to 8 levels), then by line windows. Adjacent keys
 * whose combined span stays within half of both limits are merged (symbol = the first path).
 * Lines between keys go to the key below them; lines after the last key to the last chunk, so
 * chunks cover the file without overlap. Input the parser rejects is cut into line windows.
 */
export function chunkConfig(text: string, language: 'json' | 'yaml' | 'toml', config: ChunkConfig): ChunkDraft[] {
  const table = new LineTable(text);
  if (table.count === 0) return [];
  try {
    const regions = language === 'json' ? jsonRegions(table) : language === 'yaml' ? yamlRegions(table) : tomlRegions(table);
    if (regions) {
      // overlapping windows would duplicate key lines across chunks; structure makes them unneeded
      const ctx: Ctx = { table, config: { ...config, overlapLines: 0 }, out: [] };
      for (const r of regions) layout(ctx, r.nodes, r.start, r.end, 0, undefined);
      return ctx.out;
    }
  } catch {
    // a file the parsers choke on (or a parser bug) must not stop indexing: windows below
  }
  return splitLines(table, 0, table.count - 1, config, { kind: 'window' });
}

function layout(ctx: Ctx, nodes: readonly KeyNode[], start: number, end: number, depth: number, owner: KeyNode | undefined): void {
  const { table, config } = ctx;
  const parts = partition(table, nodes, start, end);
  if (parts.length === 0) {
    const windows = splitLines(table, start, end, config, owner ? { kind: 'key', symbol: owner.path, container: owner.parent } : { kind: 'window' });
    ctx.out.push(...windows.filter((c) => !isPunctuation(table, c)));
    return;
  }
  const bytes = (a: number, b: number): number => table.byteStarts[b + 1]! - table.byteStarts[a]!;
  let pending: Span[] = [];
  const flush = (): void => {
    if (pending.length > 0) emitMerged(ctx, pending);
    pending = [];
  };
  for (const part of parts) {
    if (bytes(part.start, part.end) > config.maxBytes || part.end - part.start + 1 > config.windowLines) {
      flush();
      splitPart(ctx, part, depth);
      continue;
    }
    const from = pending[0]?.start;
    if (from !== undefined && (bytes(from, part.end) > config.maxBytes / 2 || part.end - from + 1 > config.windowLines / 2)) flush();
    pending.push(part);
  }
  flush();
}

/**
 * Cuts [start, end] into one part per node: a part runs from the line after the previous node to
 * the node's last line (the last part to `end`), so comments above a key belong to that key.
 * Nodes sharing a line (`{"a": 1, "b": 2}`) share a part.
 */
function partition(table: LineTable, nodes: readonly KeyNode[], start: number, end: number): Span[] {
  const groups: { nodes: KeyNode[]; last: number }[] = [];
  for (const n of nodes) {
    const first = Math.max(n.first, start);
    if (first > end) continue;
    const last = Math.min(Math.max(n.last, first), end);
    const g = groups[groups.length - 1];
    if (g && first <= g.last) {
      g.nodes.push(n);
      g.last = Math.max(g.last, last);
    } else groups.push({ nodes: [n], last });
  }
  const parts: Span[] = [];
  let from = start;
  groups.forEach((g, i) => {
    let a = from;
    let b = i === groups.length - 1 ? end : g.last;
    from = b + 1;
    while (a <= b && table.isBlank(a)) a++;
    while (b >= a && table.isBlank(b)) b--;
    if (a <= b) parts.push({ nodes: g.nodes, start: a, end: b });
  });
  return parts;
}

function splitPart(ctx: Ctx, part: Span, depth: number): void {
  const only = part.nodes.length === 1 ? part.nodes[0] : undefined;
  const children = only && depth < MAX_SPLIT_DEPTH ? only.children() : [];
  if (only && children.length > 0) {
    layout(ctx, children, part.start, part.end, depth + 1, only);
    return;
  }
  const first = part.nodes[0]!;
  const defines = part.nodes.map((n) => n.path);
  for (const c of splitLines(ctx.table, part.start, part.end, ctx.config, { kind: 'key', symbol: first.path, container: first.parent })) {
    if (!isPunctuation(ctx.table, c)) ctx.out.push({ ...c, defines });
  }
}

const PUNCTUATION_RE = /^[\s{}[\](),]*$/;

/** A window of only `}` / `],` lines, left over after a long value line was cut: nothing to find there. */
function isPunctuation(table: LineTable, c: ChunkDraft): boolean {
  for (let l = c.startLine - 1; l < c.endLine; l++) if (!PUNCTUATION_RE.test(table.line(l))) return false;
  return true;
}

function emitMerged(ctx: Ctx, parts: readonly Span[]): void {
  const nodes = parts.flatMap((p) => p.nodes);
  const first = nodes[0]!;
  const defines = new Set<string>();
  for (const n of nodes) {
    defines.add(n.path);
    for (const c of n.children()) if (!c.element) defines.add(c.path);
  }
  const start = parts[0]!.start;
  const end = parts[parts.length - 1]!.end;
  const container = nodes.every((n) => n.parent === first.parent) ? first.parent : undefined;
  ctx.out.push({ kind: 'key', startLine: start + 1, endLine: end + 1, ...ctx.table.byteRange(start, end), symbol: first.path, container, defines: [...defines] });
}


/** 0-based line holding char offset `offset`. */
function lineAt(table: LineTable, offset: number): number {
  let lo = 0;
  let hi = table.count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (table.charStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Lines of the char range [start, end), ignoring trailing whitespace (block scalars end in newlines). */
function lineSpan(table: LineTable, start: number, end: number): { first: number; last: number } {
  let e = end;
  while (e > start + 1 && table.text.charCodeAt(e - 1) <= 32) e--;
  return { first: lineAt(table, start), last: lineAt(table, Math.max(start, e - 1)) };
}

const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

/** Nesting depth with jsonc-parser's iterative scanner (its SyntaxKind is a const enum). */
function exceedsJsonDepth(text: string, max: number): boolean {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let t = scanner.scan(); t !== EOF; t = scanner.scan()) {
    if (t === OPEN_BRACE || t === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (t === CLOSE_BRACE || t === CLOSE_BRACKET) depth--;
  }
  return false;
}

function jsonRegions(table: LineTable): Span[] | undefined {
  if (exceedsJsonDepth(table.text, MAX_JSON_DEPTH)) return undefined;
  const errors: ParseError[] = [];
  // jsonc-parser rejects a byte order mark; a space keeps every offset in place
  const text = table.text.charCodeAt(0) === 0xfeff ? ` ${table.text.slice(1)}` : table.text;
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (!root || errors.length > 0 || (root.type !== 'object' && root.type !== 'array')) return undefined;
  return [{ nodes: jsonChildren(table, root, undefined), start: 0, end: table.count - 1 }];
}

function jsonChildren(table: LineTable, value: JsonNode | undefined, path: string | undefined): KeyNode[] {
  if (value?.type === 'object') {
    return (value.children ?? []).flatMap((prop): KeyNode[] => {
      const [key, val] = prop.children ?? [];
      if (!key) return [];
      const p = joinKey(path, String(key.value));
      return [{ path: p, parent: path, ...lineSpan(table, prop.offset, prop.offset + prop.length), children: () => jsonChildren(table, val, p) }];
    });
  }
  const items = value?.type === 'array' ? (value.children ?? []) : [];
  if (!items.some((el) => el.type === 'object' || el.type === 'array')) return [];
  return items.map((el, i) => {
    const p = `${path ?? ''}[${i}]`;
    return { path: p, parent: path, element: true, ...lineSpan(table, el.offset, el.offset + el.length), children: () => jsonChildren(table, el, p) };
  });
}

/**
 * One region per document. A document's region starts after the previous document's content, so
 * `---` and the comments above a document belong to it; empty documents get no region of their own.
 */
function yamlRegions(table: LineTable): Span[] | undefined {
  // duplicate keys are a lint problem, not a reason to lose the file's structure
  const docs = parseAllDocuments(table.text, { prettyErrors: false, uniqueKeys: false });
  const kept: { nodes: KeyNode[]; last: number }[] = [];
  let index = 0;
  for (const doc of docs) {
    if (doc.errors.length > 0) return undefined;
    const prefix = index === 0 ? undefined : `[${index}]`;
    index++;
    const range = doc.contents?.range;
    if (!range || range[1] <= range[0]) continue; // an empty document is an empty null scalar
    kept.push({ nodes: yamlChildren(table, doc.contents, prefix), last: lineSpan(table, range[0], range[1]).last });
  }
  let start = 0;
  const regions = kept.map((k, i): Span => {
    const end = i === kept.length - 1 ? table.count - 1 : Math.max(k.last, start);
    const r = { nodes: k.nodes, start, end };
    start = end + 1;
    return r;
  });
  return regions.length > 0 ? regions : [{ nodes: [], start: 0, end: table.count - 1 }];
}

function yamlChildren(table: LineTable, value: unknown, path: string | undefined): KeyNode[] {
  if (isMap(value)) {
    return value.items.flatMap((pair): KeyNode[] => {
      const keyRange = isNode(pair.key) ? pair.key.range : undefined;
      if (!keyRange) return [];
      const val = isNode(pair.value) ? pair.value : undefined;
      const end = Math.max(val?.range?.[1] ?? 0, keyRange[1]);
      const key = isScalar(pair.key) ? String(pair.key.value) : table.text.slice(keyRange[0], keyRange[1]).replace(/\s+/g, ' ').slice(0, 80);
      const p = joinKey(path, key);
      return [{ path: p, parent: path, ...lineSpan(table, keyRange[0], end), children: () => yamlChildren(table, val, p) }];
    });
  }
  if (!isSeq(value) || !value.items.some((it) => isMap(it) || isSeq(it))) return [];
  return value.items.flatMap((item, i): KeyNode[] => {
    const range = isNode(item) ? item.range : undefined;
    if (!range) return [];
    const p = `${path ?? ''}[${i}]`;
    return [{ path: p, parent: path, element: true, ...lineSpan(table, range[0], range[1]), children: () => yamlChildren(table, item, p) }];
  });
}
