/**
 * The expansion table's build (train/expand-table.ts) on synthetic pairs: an association that
 * holds across packages is found; one package's private vocabulary, the word's own inflections
 * and tokens in most units are not; the output parses as the runtime reads it.
 */
import { describe, expect, it } from 'vitest';
import { parseExpansionTable } from '../../src/search/expansion.js';
import type { PairRecord } from '../../train/harvest.js';
import { buildTable, codeTokens, descriptionWords, tableText } from '../../train/expand-table.js';

const FILLER = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

function pairs(): PairRecord[] {
  const out: PairRecord[] = [];
  for (let i = 0; i < 400; i++) {
    const pkg = `npm:pkg${i % 10}`;
    const filler = FILLER[i % FILLER.length]!;
    const other = FILLER[(i * 7 + 3) % FILLER.length]!;
    // "remove" goes with delete/unlink code in every package; "widget" with "zork" in pkg0 only
    const remove = i % 7 === 0;
    const widget = i % 10 === 0;
    const description = `${remove ? 'Remove the' : 'Handle the'} ${filler} ${widget ? 'widget' : 'record'} entry`;
    const code = `function ${remove ? 'deleteEntry' : 'handleEntry'}(${filler}Value) {\n  ${remove ? 'unlinkNode(removed);' : `${other}Call();`}\n  ${widget ? 'zorkPart();' : ''}\n  return value;\n}`;
    out.push({ pkg, ecosystem: 'npm', language: 'javascript', path: `src/${filler}.js`, description, code, symbol: remove ? 'deleteEntry' : 'handleEntry', kind: 'function' } as PairRecord);
  }
  return out;
}

describe('expansion table build', () => {
  it('cuts descriptions into plain words and code into identifier parts', () => {
    expect([...descriptionWords('Removes the cached `fooBar` entries, if any.')]).toEqual(['removes', 'cached', 'foo', 'bar', 'entries']);
    expect([...codeTokens({ path: 'src/a.ts', symbol: 'deleteEntry', code: 'unlinkNode(x_y)' })]).toEqual(['src', 'ts', 'delete', 'entry', 'unlink', 'node']);
  });

  it('keeps associations that hold across packages, not one package’s words, inflections or ubiquitous tokens', () => {
    const table = buildTable(pairs(), { per: 4 });
    const remove = table.get('remove')?.map(([t]) => t) ?? [];
    expect(remove).toContain('delete');
    expect(remove).toContain('unlink');
    expect(remove).not.toContain('removed');
    expect(remove).not.toContain('value');
    expect(table.get('widget')?.map(([t]) => t) ?? []).not.toContain('zork');
    const parsed = parseExpansionTable(tableText(table), 'test');
    expect(parsed.terms.get('remove')![0]!.weight).toBe(1);
  });
});
