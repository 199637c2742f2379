import type { QueryMatch } from 'web-tree-sitter';
import type { LineTable } from './line-table.js';
import type { Definition } from './syntax-symbols.js';

/**
 * The UTF-8 byte ranges `[start, end)` of a file's comments and docstrings, from the `@comment`
 * and `@doc` captures of its grammar's query (`LanguageSpec.comments`, `docstrings`): sorted, and
 * a range inside another (a comment in a docstring's interpolation, say) folded into it.
 * `skipInside` (sorted, disjoint character ranges: function bodies) leaves the comments inside
 * them out (`chunk.inlineComments: 'body'`); docstrings are always kept.
 */
export function docRanges(matches: readonly QueryMatch[], table: LineTable, skipInside: ReadonlyArray<readonly [number, number]> = []): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const m of matches) {
    for (const c of m.captures) {
      const n = c.node;
      if (c.name === 'comment' && within(skipInside, n.startIndex, n.endIndex)) continue;
      const start = table.byteAt(n.startPosition.row, n.startIndex);
      const end = table.byteAt(n.endPosition.row, n.endIndex);
      if (end > start) ranges.push([start, end]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] < last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

/** Whether [start, end) lies inside one of the sorted, disjoint `ranges`. */
function within(ranges: ReadonlyArray<readonly [number, number]>, start: number, end: number): boolean {
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid]![1] <= start) lo = mid + 1;
    else hi = mid;
  }
  const r = ranges[lo];
  return r !== undefined && r[0] <= start && end <= r[1];
}

/** Character ranges of the bodies of the outermost functions and methods among `roots`, sorted. */
export function functionBodies(roots: readonly Definition[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const walk = (d: Definition): void => {
    if (d.kind === 'function' || d.kind === 'method') {
      const body = d.node.childForFieldName('body') ?? d.node;
      out.push([body.startIndex, body.endIndex]);
      return;
    }
    for (const c of d.children) walk(c);
  };
  for (const r of roots) walk(r);
  return out.sort((a, b) => a[0] - b[0]);
}
