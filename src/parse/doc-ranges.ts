import type { QueryMatch } from 'web-tree-sitter';
import type { LineTable } from './line-table.js';

/**
 * The UTF-8 byte ranges `[start, end)` of a file's comments and docstrings, from the `@doc`
 * captures of its grammar's query (`LanguageSpec.comments`, `docstrings`): sorted, and a range
 * inside another (a comment in a docstring's interpolation, say) folded into it.
 */
export function docRanges(matches: readonly QueryMatch[], table: LineTable): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const m of matches) {
    for (const c of m.captures) {
      const n = c.node;
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
