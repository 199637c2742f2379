/**
 * Windows (src/search/parse-windows.ts, window-uses.ts): the parts of a file a reference search
 * parses instead of the whole file. The geometry on hand-made definitions; then, with the real
 * TypeScript grammar, the identifier kinds from the windows against those of the whole-file parse,
 * on fixed files and on random programs (fast-check): a window either checks out and gives the
 * whole file's kinds, or is refused (and the caller parses the whole file).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tree } from 'web-tree-sitter';
import { loadGrammars, type LoadedGrammar } from '../../../src/parse/grammars.js';
import { findDefinitions, importsOf, runQuery, symbolsOf } from '../../../src/parse/syntax-symbols.js';
import { bodyWindows, lineStarts, lineWindows, reproducesDefinitions, windowText, type StoredDefinition } from '../../../src/search/parse-windows.js';
import { fileStructure, usesIn, windowedUses, type FileStructure, type ParseText } from '../../../src/search/window-uses.js';

const def = (name: string, startLine: number, endLine: number, container: string | null = null, kind = 'function'): StoredDefinition => ({ name, kind, container, startLine, startCol: 1, endLine, endCol: 2 });

describe('lineWindows / bodyWindows: geometry', () => {
  it('cuts the lines into the merged spans of the definitions and the gaps between them', () => {
    const defs = [def('a', 3, 5), def('b', 5, 8), def('c', 10, 10)];
    expect(lineWindows(defs, 0, 11).map((w) => [w.first, w.last, w.definitions.map((d) => d.name).join('')])).toEqual([
      [0, 1, ''],
      [2, 7, 'ab'],
      [8, 8, ''],
      [9, 9, 'c'],
      [10, 11, ''],
    ]);
  });

  it('a class holding methods: its head line, its body windows (with the head and closing lines as context), its closing line', () => {
    const cls = def('K', 2, 9, null, 'class');
    const [top] = lineWindows([cls, def('m', 3, 4, 'K', 'method'), def('n', 6, 8, 'K', 'method')], 1, 8);
    const body = bodyWindows(top!)!;
    expect(body.map((w) => [w.first, w.last, w.context, w.cut.map((d) => d.name)])).toEqual([
      [1, 1, [8], ['K']],
      [2, 3, [1, 8], ['K']],
      [4, 4, [1, 8], ['K']],
      [5, 7, [1, 8], ['K']],
      [8, 8, [1], ['K']],
    ]);
    // the text of a body window: head, own lines, closing
    const text = ['x', 'class K {', '  m() {', '  }', '', '  n() {', '    y', '  }', '}', ''].join('\n');
    expect(windowText(text, lineStarts(text), body[3]!)).toEqual({ text: 'class K {\n  n() {\n    y\n  }\n}\n', from: 10, line: 1, lines: [1, 5, 6, 7, 8] });
  });

  it('not cut: a definition alone, one whose head line holds another, two definitions side by side', () => {
    expect(bodyWindows(lineWindows([def('f', 1, 9)], 0, 8)[0]!)).toBeUndefined();
    expect(bodyWindows(lineWindows([def('K', 1, 9), def('m', 1, 3, 'K')], 0, 8)[0]!)).toBeUndefined();
    expect(bodyWindows(lineWindows([def('a', 1, 5), def('b', 5, 9)], 0, 8)[0]!)).toBeUndefined();
  });
});

let ts: LoadedGrammar;
beforeAll(async () => {
  ts = (await loadGrammars(['typescript'])).get('typescript')!;
});

/** The definitions and imports the index pass stores for `text` (its whole-file parse). */
function indexed(text: string): { structure: FileStructure; tree: Tree } {
  const tree = ts.parser.parse(text)!;
  const matches = runQuery(ts, tree);
  const symbols = symbolsOf(ts, findDefinitions(ts, matches.definitions), text).map((s) => ({ ...s, container: s.container ?? null }));
  return { structure: fileStructure(ts, text, symbols, importsOf(ts, matches.imports)), tree };
}

/** Uses of `name` from the windows (undefined when they do not check out) and from the whole file; the windows' parsed characters. */
function bothWays(text: string, name: string): { windows: Map<number, string> | undefined; whole: Map<number, string>; chars: number } {
  const { structure, tree } = indexed(text);
  const trees: Tree[] = [tree];
  let chars = 0;
  const parse: ParseText = (_key, slice, check) => {
    const t = ts.parser.parse(slice)!;
    trees.push(t);
    chars += slice.length;
    return { tree: t, ok: check ? check(t) : true };
  };
  try {
    const windows = windowedUses(structure, text, name, 0, parse);
    return { windows, whole: usesIn(ts, tree, text, name, structure.symbols, structure.imports), chars };
  } finally {
    for (const t of trees) t.delete();
  }
}

const FILE = [
  "import { alpha, beta } from './lib';",
  '',
  'export namespace Space {',
  '  export function inner(x: number): number {',
  '    return alpha(x) + beta;',
  '  }',
  '  export const gamma = alpha;',
  '}',
  '',
  'export class Holder extends Base {',
  '  private value = beta;',
  '  alpha(): void {',
  '    this.value = alpha(1);',
  '  }',
  '  other(): number {',
  '    return 2;',
  '  }',
  '  plain() {',
  '    return beta;',
  '  }',
  '}',
  '',
  'function alphaLike(): void {',
  '  // alpha in a comment',
  "  console.log('alpha', alpha);",
  '}',
  '',
].join('\n');

describe('windowed uses against the whole-file parse (TypeScript grammar)', () => {
  it('the names of a file with a namespace, a class and functions: the same kinds, from part of the text', () => {
    const cut: string[] = [];
    for (const name of ['alpha', 'beta', 'gamma', 'inner', 'Holder', 'other', 'plain', 'value', 'Space']) {
      const got = bothWays(FILE, name);
      if (got.windows === undefined) continue; // `alpha` is all over the file: parsed whole
      expect({ name, uses: got.windows }).toEqual({ name, uses: got.whole });
      expect(got.chars).toBeLessThan(FILE.length * 0.75);
      cut.push(name);
    }
    expect(cut).toEqual(['beta', 'gamma', 'inner', 'Holder', 'other', 'plain', 'value', 'Space']);
  });

  it('a method parsed without its class does not check out (`plain() {...}` alone reads as a call and a block, without an error)', () => {
    const { structure } = indexed(FILE);
    const method = structure.symbols.find((s) => s.name === 'plain' && s.kind === 'method')!;
    const [window] = lineWindows([method], method.startLine - 1, method.endLine - 1);
    const text = windowText(FILE, structure.starts, window!);
    const tree = ts.parser.parse(text.text)!;
    try {
      expect(reproducesDefinitions(ts, tree, text, window!)).toBe(false);
    } finally {
      tree.delete();
    }
  });

  it('a gap that starts inside a block comment does not check out (alone, the commented-out function is a definition)', () => {
    const text = ['export function first(): void {', '} /*', 'function hidden(): void {', '}', '*/ export function second(): void {}', ''].join('\n');
    const got = bothWays(text, 'hidden');
    expect(got.whole).toEqual(new Map());
    expect(got.windows).toBeUndefined();
  });
});

// random programs: fragments using three names in every role (definition, call, import, reference, comment, string)
const nameArb = fc.constantFrom('alpha', 'beta', 'gamma');
const fragmentArb: fc.Arbitrary<string[]> = fc.oneof(
  nameArb.map((n) => [`import { ${n} } from './${n}';`]),
  fc.tuple(nameArb, nameArb).map(([a, b]) => [`export function ${a}Fn(x: number): number {`, `  return ${b}(x);`, '}']),
  fc.tuple(nameArb, nameArb, nameArb).map(([a, b, c]) => [`class ${a}Class {`, `  ${b}(): void {`, `    this.${c}();`, '  }', `  ${c} = ${b};`, '}']),
  fc.tuple(nameArb, nameArb).map(([a, b]) => [`namespace ${a}Space {`, `  export function ${b}(): void {`, `    ${a}(${b});`, '  }', `  export const ${a}Value = ${b};`, '}']),
  fc.tuple(nameArb, nameArb).map(([a, b]) => [`const ${a}Obj = {`, `  ${b}() {`, `    return ${a};`, '  },', '};']),
  // a method of an object that is no definition: alone, it reads as a call and a block
  fc.tuple(nameArb, nameArb).map(([a, b]) => ['module.exports = {', `  ${a}() {`, `    return ${b}(${a});`, '  }', '};']),
  fc.tuple(nameArb, nameArb).map(([a, b]) => [`/* ${a}`, `   ${b}() { */`, `const ${a}Arrow = (${b}: number) => ${a}(${b});`]),
  nameArb.map((n) => [`// ${n} here`, `export const note = '${n}';`]),
  nameArb.map((n) => [`${n}.call(${n});`]),
  fc.constant<string[]>(['}', 'broken(']),
  // a comment opened on a definition's closing line: the lines after it read as code on their own
  fc.tuple(nameArb, nameArb).map(([a, b]) => [`export function ${a}Fn(): void {`, '} /*', `function ${b}(): void {`, '}', `*/ export function ${b}Fn(): void {}`]),
);

describe('windowed uses on random programs (fast-check)', () => {
  it('whenever the windows check out, they give the kinds of the whole-file parse', () => {
    let checkedOut = 0;
    fc.assert(
      fc.property(fc.array(fragmentArb, { minLength: 1, maxLength: 12 }), nameArb, (fragments, name) => {
        const text = `${fragments.flat().join('\n')}\n`;
        const got = bothWays(text, name);
        if (got.windows) {
          checkedOut++;
          expect(got.windows).toEqual(got.whole);
        }
      }),
      { numRuns: 150 },
    );
    // not vacuous: a good share of the programs are cut (about 40 of 150 runs)
    expect(checkedOut).toBeGreaterThan(15);
  });
});
