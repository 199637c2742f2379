import type { Node } from 'web-tree-sitter';
import type { ChunkDraft, ChunkKind } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import type { LineTable } from './line-table.js';
import type { Definition } from './syntax-symbols.js';
import { signatureOf } from './syntax-symbols.js';
import { splitLines } from './window-chunker.js';

/** A run of whole lines (0-based, inclusive) that will become one chunk. */
interface Segment {
  start: number;
  end: number;
  kind: ChunkKind;
  symbol?: string | undefined;
  container?: string | undefined;
  signature?: string | undefined;
  defines: string[];
  /** The breadcrumb level the segment was cut at: only segments of one level merge. */
  scope: string;
  /** A piece of a definition split in several: never merged with a neighbour. */
  piece?: boolean;
  /** A split class's own lines (head, fields): named after the class whatever merges into it. */
  head?: boolean;
  /** Size of the definition the segment is named after, once merged with others. */
  nameBytes?: number | undefined;
  /** Exact bytes, for a piece of a line too long to be a chunk on its own. */
  bytes?: { startByte: number; endByte: number } | undefined;
}

type Piece = { start: number; end: number; bytes?: { startByte: number; endByte: number } | undefined };

/** Line-window pieces of lines [a, b], keeping exact bytes where a long line was cut. */
function windowPieces(ctx: AstChunkContext, a: number, b: number, kind: ChunkKind): Piece[] {
  return splitLines(ctx.table, a, b, ctx.config, { kind }).map((c) => {
    const start = c.startLine - 1;
    const end = c.endLine - 1;
    const whole = ctx.table.byteRange(start, end);
    const exact = whole.startByte !== c.startByte || whole.endByte !== c.endByte;
    return { start, end, ...(exact ? { bytes: { startByte: c.startByte, endByte: c.endByte } } : {}) };
  });
}

export interface AstChunkContext {
  readonly text: string;
  readonly table: LineTable;
  readonly config: ChunkConfig;
  /** Node types that belong to the definition below them (comments, decorators). */
  readonly leading: readonly string[];
  /** Node types that wrap a definition (export statements, decorated definitions). */
  readonly wrappers: readonly string[];
  /** 0-based lines where an import statement starts. */
  readonly importLines: ReadonlySet<number>;
  /** 0-based line of the first top-level definition (imports are above it). */
  firstDefinitionLine: number;
}

/** Nesting below which a too-large node is not split further (deeply nested input). */
const MAX_SPLIT_DEPTH = 64;
const MAX_DEFINES = 50;

/**
 * Size rules, in bytes of UTF-8 (about 4 bytes a token for code): a chunk aims at 200–800 tokens.
 * `soft` is where a definition stops being one chunk (80% of maxBytes, ~800 tokens at the 4096
 * default); `target` is the size under which adjacent siblings are merged (maxBytes / 5, ~200
 * tokens); `maxBytes` is the hard clamp.
 */
function limits(config: ChunkConfig): { soft: number; target: number; definitions: number } {
  const target = Math.floor(config.maxBytes / 5);
  return { soft: Math.floor(config.maxBytes * 0.8), target, definitions: config.mergeDefinitions ?? target };
}

const bytesOf = (ctx: AstChunkContext, a: number, b: number): number => ctx.table.byteStarts[b + 1]! - ctx.table.byteStarts[a]!;

const endRow = (node: Node): number => {
  const e = node.endPosition;
  return e.column === 0 && e.row > node.startPosition.row ? e.row - 1 : e.row;
};

/** The lines of a definition's chunk: its wrappers (export, decorators) and the comments right above it. */
function definitionLines(ctx: AstChunkContext, d: Definition): [number, number] {
  let node = d.node;
  while (node.parent && ctx.wrappers.includes(node.parent.type) && node.parent.startPosition.row >= node.startPosition.row - 2) node = node.parent;
  let top = node.startPosition.row;
  for (let prev = node.previousSibling; prev && ctx.leading.includes(prev.type) && endRow(prev) >= top - 1; prev = prev.previousSibling) {
    top = prev.startPosition.row;
  }
  return [top, Math.max(top, endRow(node))];
}

function namesIn(d: Definition, out: string[] = []): string[] {
  if (d.keep && d.kind && !out.includes(d.name) && out.length < MAX_DEFINES) out.push(d.name);
  for (const c of d.children) namesIn(c, out);
  return out;
}

/**
 * Cuts a parsed file into chunks along its definitions: each function or method is a chunk; a
 * class (struct, interface, module...) small enough is one chunk, a larger one becomes a head
 * chunk and one chunk per member; top-level statements between definitions are grouped; small
 * adjacent siblings are merged; a definition larger than the soft limit is split on the
 * boundaries of its inner blocks, never inside a line. Chunks cover every non-blank line.
 */
export function chunkSyntax(ctx: AstChunkContext, roots: readonly Definition[]): ChunkDraft[] {
  const count = ctx.table.count;
  if (count === 0) return [];
  ctx.firstDefinitionLine = roots.length > 0 ? roots[0]!.node.startPosition.row : count;
  const segments = segmentsOf(ctx, 0, count - 1, roots, [], undefined);
  const out: ChunkDraft[] = [];
  for (const s of segments) {
    let a = s.start;
    let b = s.end;
    while (a <= b && ctx.table.isBlank(a)) a++;
    while (b >= a && ctx.table.isBlank(b)) b--;
    if (a > b) continue;
    out.push({
      kind: s.kind,
      startLine: a + 1,
      endLine: b + 1,
      ...(s.bytes ?? ctx.table.byteRange(a, b)),
      symbol: s.symbol,
      container: s.container,
      ...(s.defines.length > 0 ? { defines: s.defines } : {}),
      ...(s.signature ? { signature: s.signature } : {}),
    });
  }
  return out;
}

function segmentsOf(ctx: AstChunkContext, a: number, b: number, children: readonly Definition[], crumbs: readonly string[], owner: Definition | undefined): Segment[] {
  const segs: Segment[] = [];
  let cursor = a;
  for (const d of children) {
    let [s, e] = definitionLines(ctx, d);
    s = Math.max(s, a);
    e = Math.min(e, b);
    if (s < cursor) {
      // starts on a line the previous chunk already has (two definitions on one line)
      const last = segs[segs.length - 1];
      if (last) for (const n of namesIn(d)) if (!last.defines.includes(n) && last.defines.length < MAX_DEFINES) last.defines.push(n);
      if (e < cursor) continue;
      if (last && !last.bytes && bytesOf(ctx, last.start, e) <= limits(ctx.config).soft) {
        last.end = e;
        cursor = e + 1;
        continue;
      }
      // too big to share one chunk: the rest of this definition starts on the next free line
      s = cursor;
    }
    if (s > cursor) segs.push(...gapSegments(ctx, cursor, s - 1, crumbs, owner));
    segs.push(...definitionSegments(ctx, d, s, e, crumbs));
    cursor = e + 1;
  }
  if (cursor <= b) segs.push(...gapSegments(ctx, cursor, b, crumbs, owner));
  return mergeSmall(ctx, segs);
}

function definitionSegments(ctx: AstChunkContext, d: Definition, s: number, e: number, crumbs: readonly string[]): Segment[] {
  const { soft } = limits(ctx.config);
  // a Go or C++ method defined outside its type names the type as its container
  const container = crumbs.length > 0 ? crumbs.join(' > ') : d.receiver;
  const scope = crumbs.join(' > ');
  const base = { kind: d.kind ?? ('statements' as ChunkKind), symbol: d.name, container, scope, signature: d.kind ? signatureOf(d.node, ctx.text) : undefined };
  if (bytesOf(ctx, s, e) <= soft) return [{ ...base, start: s, end: e, defines: namesIn(d) }];
  const isFunction = d.kind === 'function' || d.kind === 'method';
  if (!isFunction && d.children.length > 0) return segmentsOf(ctx, s, e, d.children, [...crumbs, d.label], d);
  return splitNode(ctx, d.node, s, e).map((p, i) => ({ ...base, ...p, defines: i === 0 ? namesIn(d) : [], piece: true }));
}

/** Lines between definitions: statements (imports, top-level code) or a class's own lines. */
function gapSegments(ctx: AstChunkContext, x: number, y: number, crumbs: readonly string[], owner: Definition | undefined): Segment[] {
  const { soft } = limits(ctx.config);
  let first = x;
  while (first <= y && ctx.table.isBlank(first)) first++;
  if (first > y) return [];
  const container = owner ? crumbs.slice(0, -1).join(' > ') || undefined : crumbs.join(' > ') || undefined;
  const kind: ChunkKind = owner ? (owner.kind ?? 'statements') : !crumbs.length && isImportGap(ctx, x, y) ? 'imports' : 'statements';
  // the head of a split class defines it; its later own lines (fields, the closing brace) do not
  const defines = owner?.kind && x <= owner.node.startPosition.row ? [owner.name] : [];
  const base = { kind, symbol: owner?.name, container, scope: crumbs.join(' > '), signature: owner?.kind ? signatureOf(owner.node, ctx.text) : undefined, defines, head: owner !== undefined };
  if (bytesOf(ctx, x, y) <= soft) return [{ ...base, start: x, end: y }];
  return windowPieces(ctx, x, y, kind).map((p) => ({ ...base, defines: [...defines], ...p, piece: true }));
}

/**
 * Lines before the first definition that hold import statements are the file's imports, even
 * when a package clause, module docstring or header comment comes first.
 */
function isImportGap(ctx: AstChunkContext, x: number, y: number): boolean {
  if (x > ctx.firstDefinitionLine) return false;
  for (let l = x; l <= y; l++) if (ctx.importLines.has(l)) return true;
  return false;
}

/** A closing line with no words of its own (`}`, `end`, `);`) belongs to the chunk above it. */
function isClosing(ctx: AstChunkContext, s: Segment): boolean {
  if (s.end - s.start > 1) return false;
  for (let l = s.start; l <= s.end; l++) if (/[\w"'`]/.test(ctx.table.line(l).replace(/\bend\b/, ''))) return false;
  return true;
}

/** Merges adjacent small siblings until each group reaches the target size; never imports with code. */
function mergeSmall(ctx: AstChunkContext, segs: Segment[]): Segment[] {
  const { soft, target, definitions } = limits(ctx.config);
  const out: Segment[] = [];
  for (const s of segs) {
    const prev = out[out.length - 1];
    if (prev && prev.end < s.start && !prev.bytes && !s.bytes) {
      const closing = isClosing(ctx, s) && bytesOf(ctx, prev.start, s.end) <= ctx.config.maxBytes;
      const fits = bytesOf(ctx, prev.start, s.end) <= soft;
      // two definitions (each with a signature) share a chunk under their own, smaller, limit
      const under = prev.signature !== undefined && s.signature !== undefined ? definitions : target;
      const small = !prev.piece && !s.piece && bytesOf(ctx, prev.start, prev.end) < under && prev.scope === s.scope;
      const separate = prev.kind === 'imports' || s.kind === 'imports';
      if (closing || (fits && small && !separate)) {
        // a merged chunk is named after its largest definition (a run of statements has no name)
        const sBytes = bytesOf(ctx, s.start, s.end);
        // (a class's own lines keep the class's name: its members are what it holds)
        if (!prev.head && s.signature && (!prev.signature || sBytes > (prev.nameBytes ?? bytesOf(ctx, prev.start, prev.end)))) {
          Object.assign(prev, { kind: s.kind, symbol: s.symbol, signature: s.signature, nameBytes: sBytes });
        } else if (prev.signature && prev.nameBytes === undefined) {
          prev.nameBytes = bytesOf(ctx, prev.start, prev.end);
        }
        prev.end = s.end;
        for (const n of s.defines) if (!prev.defines.includes(n) && prev.defines.length < MAX_DEFINES) prev.defines.push(n);
        continue;
      }
    }
    out.push(s);
  }
  return out;
}

/**
 * Splits a node larger than the soft limit on the line boundaries of its children, descending
 * into children that are themselves too large, then packs consecutive pieces up to the soft
 * limit. A piece still over maxBytes (one long line, or nesting deeper than MAX_SPLIT_DEPTH) is
 * cut by the line-window rules.
 */
function splitNode(ctx: AstChunkContext, node: Node, s: number, e: number): Piece[] {
  const { soft, target } = limits(ctx.config);
  const units: Array<[number, number]> = [];
  const flatten = (n: Node, depth: number): void => {
    for (const child of n.children) {
      if (!child) continue;
      const cs = child.startPosition.row;
      const ce = endRow(child);
      if (ce > cs && depth < MAX_SPLIT_DEPTH && child.childCount > 0 && bytesOf(ctx, cs, ce) > soft) flatten(child, depth + 1);
      else units.push([cs, ce]);
    }
  };
  if (e > s) flatten(node, 0);
  if (units.length === 0) units.push([s, e]);
  units.sort((p, q) => p[0] - q[0]);
  const merged: Array<[number, number]> = [];
  for (const u of units) {
    const last = merged[merged.length - 1];
    if (last && u[0] <= last[1]) last[1] = Math.max(last[1], u[1]);
    else merged.push([u[0], u[1]]);
  }
  merged[0]![0] = s;
  merged[merged.length - 1]![1] = e;
  const pieces: Piece[] = [];
  for (const [us, ue] of merged) {
    const cur = pieces[pieces.length - 1];
    if (cur && bytesOf(ctx, cur.start, ue) <= soft) cur.end = ue;
    else pieces.push({ start: cur ? Math.max(us, cur.end + 1) : us, end: ue });
  }
  // a piece under the merge target (a lone signature line before a body that fills a piece)
  // joins its neighbour when the two fit the hard limit
  const joined: Piece[] = [];
  for (const p of pieces) {
    const prev = joined[joined.length - 1];
    const tiny = prev && (bytesOf(ctx, prev.start, prev.end) < target || bytesOf(ctx, p.start, p.end) < target);
    if (prev && tiny && bytesOf(ctx, prev.start, p.end) <= ctx.config.maxBytes) prev.end = p.end;
    else joined.push({ ...p });
  }
  return joined.flatMap((p) => (bytesOf(ctx, p.start, p.end) <= ctx.config.maxBytes ? [p] : windowPieces(ctx, p.start, p.end, 'window')));
}
