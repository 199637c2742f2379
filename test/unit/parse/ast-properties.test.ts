/**
 * Properties of the tree-sitter chunker on random programs built from TypeScript-like and
 * Python-like fragments (imports, comments, functions of every size, classes, arrow functions,
 * top-level statements, very long lines, broken syntax, unicode, CRLF), checked against a naive
 * oracle that splits the text on '\n'. Whatever the parser does with the input (a syntax tree, or
 * the line-window fallback), the chunks must be bounded, sorted, byte-exact and cover the file.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ParsedFile } from '../../../src/core/chunk.js';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { createFileParser } from '../../../src/parse/chunker.js';
import { loadGrammars, type LoadedGrammar } from '../../../src/parse/grammars.js';
import { checkChunkGeometry, configArb as configArbUpTo } from '../../helpers/chunk-oracle.js';

/** Parsing costs a few ms a file: 80 runs by default; raise with SCRY_AST_RUNS for a longer hunt. */
const RUNS = Number(process.env.SCRY_AST_RUNS ?? 80);
/** About 30 ms a run; the timeout grows with RUNS. */
const TIMEOUT_MS = Math.max(60_000, RUNS * 100);

// ---------------------------------------------------------------------------------------------
// Generators: a program is a list of fragments, each a list of lines (no terminators)
// ---------------------------------------------------------------------------------------------

const identArb = fc.constantFrom('alpha', 'betaValue', 'gamma_2', 'café', 'naïve', 'δelta', 'résumé', '_private', 'x', 'handleRequest');
const wordArb = fc.constantFrom('retry', 'the', 'database', 'cache', 'übergröße', '日本語', '😀', 'naïve', 'x', 'QUERY');
const phraseArb = fc.array(wordArb, { minLength: 1, maxLength: 8 }).map((ws) => ws.join(' '));
const stringLitArb = phraseArb.map((p) => `'${p.replace(/'/g, '')}'`);

/** A long string line inside a body: 20 bytes to 9 KB, so below, around and above every clamp. */
const blobArb = (indent: string, prefix: string, suffix: string): fc.Arbitrary<string[]> =>
  fc
    .tuple(fc.constantFrom('x', 'é', '日', '😀', 'ab '), fc.integer({ min: 20, max: 9000 }))
    .map(([unit, bytes]) => [`${indent}${prefix}"${unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)))}"${suffix}`]);

/** One statement line of a TS body, at the given indent. */
const tsStatementArb = (indent: string): fc.Arbitrary<string[]> =>
  fc.oneof(
    { weight: 1, arbitrary: blobArb(indent, 'const blob = ', ';') },
    { weight: 5, arbitrary: fc.tuple(identArb, fc.nat(999), stringLitArb).map(([id, n, s]) => [`${indent}const ${id}${n} = compute(${n}, ${s});`]) },
    { weight: 2, arbitrary: fc.tuple(identArb, fc.nat(99)).map(([id, n]) => [`${indent}if (${id} > ${n}) {`, `${indent}  total += ${id} * ${n};`, `${indent}}`]) },
    { weight: 1, arbitrary: phraseArb.map((p) => [`${indent}// ${p}`]) },
    { weight: 1, arbitrary: fc.constant<string[]>(['']) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('for (const item of items) {', 'while (queue.length > 0) {', 'try {'), stringLitArb).map(([head, s]) => [`${indent}${head}`, `${indent}  log(${s});`, `${indent}}`]) },
  );

/** Body sizes: mostly small, sometimes medium, now and then huge (several maxBytes). */
const bodySizeArb = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 8 }) }, { weight: 3, arbitrary: fc.integer({ min: 9, max: 60 }) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 300 }) });

const tsBodyArb = (indent: string): fc.Arbitrary<string[]> =>
  bodySizeArb.chain((n) => fc.array(tsStatementArb(indent), { minLength: n, maxLength: n })).map((parts) => parts.flat());

const docArb = fc.option(
  phraseArb.map((p) => ['/**', ` * ${p}`, ' */']),
  { nil: undefined },
);

const tsFunctionArb: fc.Arbitrary<string[]> = fc
  .tuple(docArb, fc.boolean(), identArb, fc.nat(99), tsBodyArb('  '))
  .map(([doc, exported, id, n, body]) => [...(doc ?? []), `${exported ? 'export ' : ''}function ${id}${n}(a: number, b: string): number {`, ...body, '  return 0;', '}']);

const tsArrowArb: fc.Arbitrary<string[]> = fc
  .tuple(identArb, fc.nat(99), tsBodyArb('  '))
  .map(([id, n, body]) => [`export const ${id}${n} = async (input: string): Promise<void> => {`, ...body, '};']);

const tsMethodArb: fc.Arbitrary<string[]> = fc
  .tuple(docArb, fc.constantFrom([], ['  @traced()'], ['  @logged', '  @cached(10)']), identArb, fc.nat(99), tsBodyArb('    '))
  .map(([doc, decorators, id, n, body]) => [...(doc ?? []).map((l) => `  ${l}`), ...decorators, `  ${id}${n}(n: string): Promise<void> {`, ...body, '  }']);

const tsClassArb: fc.Arbitrary<string[]> = fc
  .tuple(docArb, fc.boolean(), identArb, fc.nat(99), fc.array(tsMethodArb, { maxLength: 8 }))
  .map(([doc, decorated, id, n, methods]) => [
    ...(doc ?? []),
    ...(decorated ? ['@Component({ selector: "x" })'] : []),
    `export class ${id}${n} {`,
    '  private count = 0;',
    ...methods.flatMap((m) => ['', ...m]),
    '}',
  ]);

const tsNamespaceArb: fc.Arbitrary<string[]> = fc
  .tuple(identArb, fc.array(fc.oneof(tsFunctionArb, tsClassArb), { minLength: 1, maxLength: 3 }))
  .map(([id, members]) => [`namespace ${id}NS {`, ...members.flat().map((l) => (l === '' ? '' : `  ${l}`)), '}']);

/** A very long single line: a string constant of 600–9000 characters, ASCII or not. */
const longLineArb: fc.Arbitrary<string[]> = fc
  .tuple(fc.constantFrom('x', 'é', '日', '😀', 'ab '), fc.integer({ min: 600, max: 9000 }), fc.nat(99))
  .map(([unit, n, k]) => [`const long${k} = "${unit.repeat(Math.ceil(n / unit.length))}";`]);

const tsFragmentArb: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(identArb, identArb).map(([a, b]) => [`import { ${a} } from './${b}.js';`]) },
  { weight: 1, arbitrary: identArb.map((a) => [`import ${a.replace(/[^\w]/g, '')}Default from 'pkg-${a.length}';`]) },
  { weight: 2, arbitrary: phraseArb.map((p) => [`// ${p}`]) },
  { weight: 1, arbitrary: phraseArb.map((p) => ['/*', ` * ${p}`, ' */']) },
  { weight: 3, arbitrary: fc.constantFrom<string[]>([''], ['', ''], ['   ']) },
  { weight: 5, arbitrary: tsFunctionArb },
  { weight: 2, arbitrary: tsArrowArb },
  { weight: 3, arbitrary: tsClassArb },
  { weight: 1, arbitrary: tsNamespaceArb },
  { weight: 2, arbitrary: fc.tuple(identArb, fc.nat(99), stringLitArb).map(([id, n, s]) => [`console.log(${s});`, `let ${id}Count = ${n};`]) },
  { weight: 1, arbitrary: fc.tuple(identArb, stringLitArb).map(([id, s]) => [`export const ${id.toUpperCase()}_LABEL = ${s};`]) },
  { weight: 1, arbitrary: longLineArb },
);

/** Occasional broken syntax: a missing `}`, a stray `{`, or an unclosed parenthesis. */
function breakSyntax(lines: string[], how: number, at: number): string[] {
  const out = [...lines];
  if (out.length === 0) return out;
  const i = at % out.length;
  if (how === 0) {
    const close = out.findIndex((l, j) => j >= i && /^\s*}\s*;?$/.test(l));
    if (close !== -1) out.splice(close, 1);
  } else if (how === 1) {
    out.splice(i, 0, 'if (broken) {');
  } else {
    out.splice(i, 0, 'call(a, b,');
  }
  return out;
}

/** Lines joined with '\n', '\r\n', or a mix of both; with or without a final terminator. */
function joinLines(lines: string[], eol: 'lf' | 'crlf' | 'mixed', finalNewline: boolean, seed: number): string {
  if (lines.length === 0) return '';
  const terms = lines.map((_, i) => (eol === 'lf' ? '\n' : eol === 'crlf' ? '\r\n' : (i * 7 + seed) % 3 === 0 ? '\r\n' : '\n'));
  const text = lines.map((l, i) => l + terms[i]).join('');
  return finalNewline ? text : text.replace(/\r?\n$/, '');
}

const programArb = (fragment: fc.Arbitrary<string[]>, brokenOptions: (lines: string[], how: number, at: number) => string[]): fc.Arbitrary<string> =>
  fc
    .record({
      fragments: fc.array(fragment, { minLength: 0, maxLength: 14 }),
      broken: fc.option(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.nat()), { freq: 4, nil: undefined }),
      eol: fc.constantFrom<'lf' | 'crlf' | 'mixed'>('lf', 'lf', 'crlf', 'mixed'),
      finalNewline: fc.boolean(),
      seed: fc.nat(10),
    })
    .map(({ fragments, broken, eol, finalNewline, seed }) => {
      let lines = fragments.flat();
      if (broken) lines = brokenOptions(lines, broken[0], broken[1]);
      return joinLines(lines, eol, finalNewline, seed);
    });

const tsProgramArb = programArb(tsFragmentArb, breakSyntax);

// ---- Python-like ------------------------------------------------------------------------------

const pyStatementArb = (indent: string): fc.Arbitrary<string[]> =>
  fc.oneof(
    { weight: 1, arbitrary: blobArb(indent, 'blob = ', '') },
    { weight: 5, arbitrary: fc.tuple(identArb, fc.nat(999), stringLitArb).map(([id, n, s]) => [`${indent}${id.replace(/[^\w]/g, 'x')}_${n} = compute(${n}, ${s})`]) },
    { weight: 2, arbitrary: fc.tuple(fc.nat(99)).map(([n]) => [`${indent}if total > ${n}:`, `${indent}    total -= ${n}`]) },
    { weight: 1, arbitrary: phraseArb.map((p) => [`${indent}# ${p}`]) },
    { weight: 1, arbitrary: fc.constant<string[]>(['']) },
    { weight: 1, arbitrary: stringLitArb.map((s) => [`${indent}for item in items:`, `${indent}    log(${s}, item)`]) },
  );

const pyBodyArb = (indent: string): fc.Arbitrary<string[]> =>
  bodySizeArb.chain((n) => fc.array(pyStatementArb(indent), { minLength: n, maxLength: n })).map((parts) => parts.flat());

const pyDecoratorsArb = fc.constantFrom<string[]>([], ['@cache'], ['@app.route("/x")', '@login_required'], ['@staticmethod']);

const pyFunctionArb = (indent: string): fc.Arbitrary<string[]> =>
  fc
    .tuple(pyDecoratorsArb, identArb, fc.nat(99), fc.option(phraseArb, { nil: undefined }), pyBodyArb(`${indent}    `))
    .map(([decorators, id, n, doc, body]) => [
      ...decorators.map((d) => `${indent}${d}`),
      `${indent}def ${id}_${n}(self, value: int = 0) -> int:`,
      ...(doc ? [`${indent}    """${doc}"""`] : []),
      ...body,
      `${indent}    return value`,
    ]);

const pyClassArb: fc.Arbitrary<string[]> = fc
  .tuple(identArb, fc.nat(99), fc.array(pyFunctionArb('    '), { maxLength: 8 }))
  .map(([id, n, methods]) => [`class ${id.replace(/[^\w]/g, 'X')}${n}(Base):`, '    """A class."""', '    LIMIT = 10', ...methods.flatMap((m) => ['', ...m])]);

const pyFragmentArb: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 2, arbitrary: identArb.map((a) => [`import os.${a.replace(/[^\w]/g, 'x')}`]) },
  { weight: 1, arbitrary: fc.tuple(identArb, identArb).map(([a, b]) => [`from .${a.replace(/[^\w]/g, 'x')} import ${b.replace(/[^\w]/g, 'y')}`]) },
  { weight: 2, arbitrary: phraseArb.map((p) => [`# ${p}`]) },
  { weight: 3, arbitrary: fc.constantFrom<string[]>([''], ['', ''], ['    ']) },
  { weight: 5, arbitrary: pyFunctionArb('') },
  { weight: 3, arbitrary: pyClassArb },
  { weight: 2, arbitrary: fc.tuple(identArb, stringLitArb).map(([id, s]) => [`${id.replace(/[^\w]/g, 'x').toUpperCase()} = ${s}`, `print(${s})`]) },
  { weight: 1, arbitrary: longLineArb.map((ls) => ls.map((l) => l.replace(/^const /, '').replace(/;$/, ''))) },
);

/** Python breakage: a missing colon, a bad dedent, or an unclosed bracket. */
function breakPython(lines: string[], how: number, at: number): string[] {
  const out = [...lines];
  if (out.length === 0) return out;
  const i = at % out.length;
  if (how === 0) {
    const head = out.findIndex((l, j) => j >= i && /:\s*$/.test(l));
    if (head !== -1) out[head] = out[head]!.replace(/:\s*$/, '');
  } else if (how === 1) {
    out.splice(i, 0, '      oddly_indented = (');
  } else {
    out.splice(i, 0, 'items = [1, 2,');
  }
  return out;
}

const pyProgramArb = programArb(pyFragmentArb, breakPython);

const configArb = configArbUpTo(4096);

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

function checkParsed(text: string, parsed: ParsedFile, config: ChunkConfig): void {
  const { chunks } = parsed;
  const o = checkChunkGeometry(text, chunks, config);
  // consecutive chunks share at most overlapLines lines (pieces of one long line aside)
  for (let i = 1; i < chunks.length; i++) {
    const [a, b] = [chunks[i - 1]!, chunks[i]!];
    const samePiecedLine = a.startLine === a.endLine && b.startLine === b.endLine && a.startLine === b.startLine;
    if (!samePiecedLine) expect(a.endLine - b.startLine + 1).toBeLessThanOrEqual(config.overlapLines);
  }
  // symbols lie within the file
  for (const s of parsed.symbols) {
    expect(s.startLine).toBeGreaterThanOrEqual(1);
    expect(s.endLine).toBeGreaterThanOrEqual(s.startLine);
    expect(s.endLine).toBeLessThanOrEqual(Math.max(1, o.lines.length));
    expect(s.name).not.toBe('');
  }
  for (const imp of parsed.imports) expect(imp.line).toBeGreaterThanOrEqual(1);
  if (parsed.parser !== 'tree-sitter') expect(parsed.symbols).toEqual([]);
}

let grammars: Map<string, LoadedGrammar>;
beforeAll(async () => {
  grammars = await loadGrammars(['typescript', 'python']);
  expect([...grammars.keys()].sort()).toEqual(['python', 'typescript']);
});

describe('tree-sitter chunker properties', () => {
  it('TypeScript-like programs: chunks are bounded, sorted, byte-exact, cover every non-blank line, overlap at most overlapLines', () => {
    fc.assert(
      fc.property(tsProgramArb, configArb, (text, config) => {
        const parser = createFileParser(config, grammars);
        const input = { path: 'gen.ts', language: 'typescript', contentType: 'code' as const, text };
        const parsed = parser.parse(input);
        checkParsed(text, parsed, config);
        expect(parser.parse(input)).toEqual(parsed);
      }),
      { numRuns: RUNS },
    );
  }, TIMEOUT_MS);

  it('Python-like programs: the same properties', () => {
    fc.assert(
      fc.property(pyProgramArb, configArb, (text, config) => {
        const parser = createFileParser(config, grammars);
        const input = { path: 'gen.py', language: 'python', contentType: 'code' as const, text };
        const parsed = parser.parse(input);
        checkParsed(text, parsed, config);
        expect(parser.parse(input)).toEqual(parsed);
      }),
      { numRuns: RUNS },
    );
  }, TIMEOUT_MS);
});
