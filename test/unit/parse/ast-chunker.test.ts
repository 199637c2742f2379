/**
 * The tree-sitter chunker on small hand-written TypeScript, JavaScript, Python, Vue, Svelte and
 * HTML inputs: class heads and members, nested containers, splitting of large definitions,
 * merging of small ones, broken syntax, script blocks, fallbacks and determinism.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChunkDraft, ChunkInput, FallbackReason, ParsedFile } from '../../../src/core/chunk.js';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { createFileParser, type FallbackListener } from '../../../src/parse/chunker.js';
import { parseCode } from '../../../src/parse/code-parser.js';
import { loadGrammars, resetGrammarCache, type LoadedGrammar } from '../../../src/parse/grammars.js';
import { grammarLanguages } from '../../../src/parse/languages/registry.js';

/** The production defaults, and a small clamp that forces splits. */
const CONFIG: ChunkConfig = { windowLines: 60, overlapLines: 8, maxBytes: 4096 };
const SMALL: ChunkConfig = { windowLines: 60, overlapLines: 8, maxBytes: 1024 };

let grammars: Map<string, LoadedGrammar>;
beforeAll(async () => {
  grammars = await loadGrammars(['typescript', 'javascript', 'python']);
  expect([...grammars.keys()].sort()).toEqual(['javascript', 'python', 'typescript']);
});

const LANGUAGES: Record<string, string> = { ts: 'typescript', js: 'javascript', py: 'python', vue: 'vue', svelte: 'svelte', html: 'html' };

function input(path: string, text: string): ChunkInput {
  return { path, language: LANGUAGES[path.slice(path.lastIndexOf('.') + 1)] ?? 'text', contentType: 'code', text };
}

function parse(path: string, text: string, config: ChunkConfig = CONFIG, onFallback?: FallbackListener): ParsedFile {
  return createFileParser(config, grammars, onFallback).parse(input(path, text));
}

const slice = (text: string, c: ChunkDraft): string => Buffer.from(text).subarray(c.startByte, c.endByte).toString('utf8');
/** 1-based number of the first line containing `needle`. */
function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i === -1) throw new Error(`no line contains ${needle}`);
  return i + 1;
}
/** UTF-8 byte offset where 1-based line `line` starts. */
const byteOfLine = (text: string, line: number): number => Buffer.byteLength(text.split('\n').slice(0, line - 1).map((l) => `${l}\n`).join(''));
const chunkAt = (chunks: readonly ChunkDraft[], line: number): ChunkDraft[] => chunks.filter((c) => c.startLine <= line && line <= c.endLine);

/** Every chunk within the clamp and byte-exact; every non-blank line in some chunk's bytes. */
function expectWellFormed(text: string, chunks: readonly ChunkDraft[], config: ChunkConfig): void {
  const lines = text.split('\n');
  for (const c of chunks) {
    expect(c.endByte - c.startByte).toBeLessThanOrEqual(config.maxBytes);
    if (c.startLine === c.endLine && Buffer.byteLength(lines[c.startLine - 1]!) > config.maxBytes) continue; // a piece of a long line
    // whole lines: starts at the start of a line, and its bytes are exactly its lines
    expect(c.startByte).toBe(byteOfLine(text, c.startLine));
    expect(slice(text, c)).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n').replace(/\r$/, ''));
  }
  for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.startByte).toBeGreaterThan(chunks[i - 1]!.startByte);
  lines.forEach((l, i) => {
    if (l.trim() !== '') expect(chunkAt(chunks, i + 1).length, `line ${i + 1} covered: ${l.slice(0, 40)}`).toBeGreaterThan(0);
  });
}

// ---------------------------------------------------------------------------------------------

const stmts = (n: number, indent: string, tag: string): string[] =>
  Array.from({ length: n }, (_, i) => `${indent}const ${tag}${i} = await this.store.load('${tag}-${i}', { retries: ${i % 5}, timeoutMs: 250 });`);

/** A decorated class of about 4.3 KB: over the soft limit (3276 bytes) of the 4096 clamp. */
const CLASS = [
  "import { Injectable } from './di.js';",
  "import type { Store } from './store.js';",
  '',
  '/** A service that runs jobs. */',
  '@Injectable()',
  'export class Foo {',
  '  private readonly queue: string[] = [];',
  '',
  '  constructor(private readonly store: Store) {}',
  '',
  '  async prepare(n: string): Promise<void> {',
  ...stmts(30, '    ', 'prep'),
  '  }',
  '',
  '  /**',
  '   * Runs one job by name.',
  '   */',
  '  @traced()',
  '  @logged',
  '  run(n: string): Promise<void> {',
  ...stmts(12, '    ', 'step'),
  '    return Promise.resolve();',
  '  }',
  '',
  '  stop(): void {',
  '    this.queue.length = 0;',
  '  }',
  '}',
  '',
].join('\n');

describe('classes larger than the soft limit', () => {
  it.each([
    ['maxBytes 4096', CONFIG],
    ['maxBytes 1024', SMALL],
  ])('become a head chunk plus member chunks (%s)', (_name, config) => {
    expect(Buffer.byteLength(CLASS)).toBeGreaterThan(config.maxBytes * 0.8);
    const { chunks, parser, symbols } = parse('foo.ts', CLASS, config);
    expect(parser).toBe('tree-sitter');
    expectWellFormed(CLASS, chunks, config);

    expect(chunks[0]).toMatchObject({ kind: 'imports', startLine: 1, endLine: 2 });
    // the head: the class's doc comment, decorator, declaration line and own fields (small
    // members right after them may join it), never the whole class
    const head = chunks[1]!;
    expect(head).toMatchObject({ kind: 'class', symbol: 'Foo', container: undefined, signature: 'class Foo', startLine: lineOf(CLASS, 'A service') });
    expect(slice(CLASS, head)).toMatch(/^\/\*\* A service that runs jobs\. \*\/\n@Injectable\(\)\nexport class Foo \{\n {2}private readonly queue/);
    expect(head.endLine).toBeLessThan(lineOf(CLASS, 'Runs one job'));

    // members: methods in `class Foo`
    const members = chunks.slice(2);
    expect(members.length).toBeGreaterThanOrEqual(2);
    for (const m of members) expect(m).toMatchObject({ kind: 'method', container: 'class Foo' });
    // each method is defined by exactly one chunk
    expect(chunks.flatMap((c) => c.defines ?? []).filter((n) => n !== 'Foo')).toEqual(['constructor', 'prepare', 'run', 'stop']);

    // the doc comment and decorators above `run` start its chunk
    const run = members.find((c) => c.symbol === 'run')!;
    expect(run).toMatchObject({ startLine: lineOf(CLASS, '   * Runs one job') - 1, signature: 'run(n: string): Promise<void>', defines: ['run'] });
    expect(slice(CLASS, run)).toMatch(/^ {2}\/\*\*\n {3}\* Runs one job by name\.\n {3}\*\/\n {2}@traced\(\)\n {2}@logged\n {2}run\(n: string\)/);
    expect(chunkAt(chunks, lineOf(CLASS, '@traced()'))).toEqual([run]);

    // the class's closing brace is in the last chunk, with the last member
    const last = chunks[chunks.length - 1]!;
    expect(last).toMatchObject({ symbol: 'stop', endLine: CLASS.split('\n').length - 1 });
    expect(slice(CLASS, last)).toMatch(/stop\(\): void \{\n {4}this\.queue\.length = 0;\n {2}\}\n\}$/);

    expect(symbols.map((s) => `${s.kind} ${s.container ?? ''}.${s.name}`)).toEqual(['class .Foo', 'method Foo.constructor', 'method Foo.prepare', 'method Foo.run', 'method Foo.stop']);
  });

  it('a class under the soft limit is one chunk, its members listed in defines', () => {
    const text = 'export class Small {\n  a(): number {\n    return 1;\n  }\n\n  b(): number {\n    return 2;\n  }\n}\n';
    expect(parse('small.ts', text).chunks).toEqual([
      { kind: 'class', startLine: 1, endLine: 9, startByte: 0, endByte: text.length - 1, symbol: 'Small', container: undefined, defines: ['Small', 'a', 'b'], signature: 'class Small' },
    ]);
  });

  it('nested containers: a class in a namespace gives `module N > class C`', () => {
    const methods = Array.from({ length: 12 }, (_, i) => [`    method${i}(a: number): number {`, `      const r = a * ${i} + this.base; // some padding text here`, '      return r;', '    }', ''].join('\n'));
    const text = `namespace N {\n  export class C {\n    base = 1;\n\n${methods.join('\n')}  }\n}\n`;
    const { chunks, symbols } = parse('ns.ts', text, SMALL);
    expectWellFormed(text, chunks, SMALL);
    expect(chunks[0]).toMatchObject({ kind: 'module', symbol: 'N', container: undefined, startLine: 1 });
    // the head of C (which may take its first small members) is inside `module N`
    expect(chunks[1]).toMatchObject({ kind: 'class', symbol: 'C', container: 'module N', startLine: 2 });
    const members = chunks.slice(2);
    expect(members.length).toBeGreaterThan(1);
    for (const m of members) expect(m).toMatchObject({ kind: 'method', container: 'module N > class C' });
    expect(chunks.flatMap((m) => m.defines ?? []).filter((n) => n.startsWith('method'))).toEqual(Array.from({ length: 12 }, (_, i) => `method${i}`));
    expect(chunks[chunks.length - 1]!.endLine).toBe(text.split('\n').length - 1);
    expect(symbols.find((s) => s.name === 'method3')).toMatchObject({ kind: 'method', container: 'N.C' });
  });
});

describe('definitions larger than the soft limit', () => {
  const body = Array.from({ length: 120 }, (_, i) => [`  if (x > ${i}) {`, `    total += compute${i}(x, "${'日本'.repeat(i % 4)}${'p'.repeat(20)}");`, '  }', ...(i % 17 === 0 ? [''] : [])].join('\n'));
  const HUGE = `// leading statement\nconst before = 1;\n\n/** Sums everything. */\nexport function huge(x: number): number {\n  let total = 0;\n${body.join('\n')}\n  return total;\n}\n\nconst after = 2;\n`;

  it.each([
    ['maxBytes 4096', CONFIG],
    ['maxBytes 1024', SMALL],
    ['maxBytes 512', { windowLines: 20, overlapLines: 4, maxBytes: 512 }],
  ])('a function is split into line-aligned, contiguous pieces named after it (%s)', (_name, config) => {
    const { chunks } = parse('huge.ts', HUGE, config);
    expectWellFormed(HUGE, chunks, config);
    const first = lineOf(HUGE, 'Sums everything');
    const last = lineOf(HUGE, '  return total;') + 1;
    const pieces = chunks.filter((c) => c.symbol === 'huge');
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces[0]).toMatchObject({ kind: 'function', startLine: first, defines: ['huge'], signature: 'function huge(x: number): number' });
    expect(pieces[pieces.length - 1]!.endLine).toBe(last);
    for (const [i, p] of pieces.entries()) {
      expect(p.kind).toBe('function');
      expect(p.endByte - p.startByte).toBeLessThanOrEqual(config.maxBytes);
      // starts at the start of a line, never mid-line
      expect(p.startByte).toBe(byteOfLine(HUGE, p.startLine));
      if (i > 0) {
        expect(p.defines).toBeUndefined();
        // contiguous: only blank lines between two pieces
        const between = HUGE.split('\n').slice(pieces[i - 1]!.endLine, p.startLine - 1);
        expect(between.every((l) => l.trim() === '')).toBe(true);
      }
    }
    // nothing but the function in its pieces
    expect(chunks.filter((c) => c.startLine >= first && c.endLine <= last)).toEqual(pieces);
  });

  it('a line longer than maxBytes inside a function is cut into byte pieces', () => {
    const long = `  const blob = "${'é'.repeat(1500)}";`;
    const text = `function withBlob(): string {\n  const a = 1;\n${long}\n  return blob;\n}\n`;
    const { chunks } = parse('blob.ts', text, SMALL);
    expectWellFormed(text, chunks, SMALL);
    const onLong = chunks.filter((c) => c.startLine === 3 && c.endLine === 3);
    expect(onLong.length).toBeGreaterThanOrEqual(3);
    expect(onLong.map((c) => slice(text, c)).join('')).toBe(long);
    for (const c of onLong) expect(slice(text, c)).not.toContain('\uFFFD');
  });
});

describe('merging small siblings', () => {
  it('merges small adjacent functions into one chunk that lists them in defines, named after the largest', () => {
    const text = "import { a } from './a';\nimport b from 'b';\n\nfunction one() { return 1; }\nfunction two() { return 2; }\n\nfunction three() {\n  return 3;\n}\n";
    const { chunks } = parse('smalls.ts', text);
    expect(chunks).toEqual([
      { kind: 'imports', startLine: 1, endLine: 2, startByte: 0, endByte: 43, symbol: undefined, container: undefined },
      { kind: 'function', startLine: 4, endLine: 9, startByte: 45, endByte: text.length - 1, symbol: 'three', container: undefined, defines: ['one', 'two', 'three'], signature: 'function three()' },
    ]);
  });

  it('mergeDefinitions: 0 keeps every definition its own chunk; statements still join their neighbours', () => {
    const text = "setup();\nfunction one() { return 1; }\nfunction two() { return 2; }\n\nfunction three() {\n  return 3;\n}\n";
    const merged = parse('smalls.ts', text);
    expect(merged.chunks.map((c) => `${c.symbol}:${c.startLine}-${c.endLine}`)).toEqual(['three:1-7']);
    const { chunks } = parse('smalls.ts', text, { ...CONFIG, mergeDefinitions: 0 });
    expectWellFormed(text, chunks, CONFIG);
    expect(chunks.map((c) => `${c.symbol}:${c.startLine}-${c.endLine}:${(c.defines ?? []).join(',')}`)).toEqual(['one:1-2:one', 'two:3-3:two', 'three:5-7:three']);
    // between the two: a pair of definitions merges only while the first part is under the limit
    const some = parse('smalls.ts', text, { ...CONFIG, mergeDefinitions: 50 });
    expect(some.chunks.map((c) => `${c.symbol}:${c.startLine}-${c.endLine}`)).toEqual(['one:1-3', 'three:5-7']);
  });

  it.each([
    ['plain.ts', "import { a } from './a';\nfunction tiny() {}\n", 'imports:1-1 function:2-2'],
    ['header.ts', "// Copyright 2024 Example Corp.\n// SPDX-License-Identifier: MIT\n\nimport { a } from './a';\nimport b from 'b';\n\nexport function tiny() {\n  return a + b;\n}\n", 'imports:1-5 function:7-9'],
    ['strict.js', "'use strict';\nimport { a } from './a';\nfunction tiny() {}\n", 'imports:1-2 function:3-3'],
    ['tiny.py', 'import os\nfrom . import util\n\ndef tiny():\n    return os.sep\n', 'imports:1-2 function:4-5'],
    ['doc.py', '"""Module docstring."""\n\nimport os\nimport sys\n\n\ndef tiny():\n    return os.sep\n', 'imports:1-4 function:7-8'],
  ])('never merges the imports with code (%s)', (path, text, expected) => {
    const { chunks } = parse(path, text);
    expect(chunks.map((c) => `${c.kind}:${c.startLine}-${c.endLine}`).join(' ')).toBe(expected);
  });

  it('stops merging when the group reaches the target size (maxBytes / 5)', () => {
    const fns = Array.from({ length: 30 }, (_, i) => `function f${i}(a: number): number {\n  return a + ${i}; // ${'pad '.repeat(8)}\n}\n`).join('\n');
    const { chunks } = parse('many.ts', fns, SMALL);
    expectWellFormed(fns, chunks, SMALL);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.flatMap((c) => c.defines ?? [])).toEqual(Array.from({ length: 30 }, (_, i) => `f${i}`));
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(SMALL.maxBytes * 0.8);
    // all but the last group reached the target before taking one more sibling
    for (const c of chunks.slice(0, -1)) expect(c.endByte - c.startByte).toBeGreaterThanOrEqual(SMALL.maxBytes / 5 - 80);
  });
});

describe('syntax errors', () => {
  const fn = (n: string): string => `export function ${n}(a: number): number {\n${stmts(8, '  ', n).join('\n').replace(/await this\./g, '')}\n  return a;\n}\n`;

  it('unbalanced braces in the middle: still a syntax tree, all lines covered, symbols before the error found', () => {
    const text = `${fn('alpha')}\n${fn('beta')}\nfunction broken(a: number) {\n  if (a > 1) {\n    return a;\n  }}}\n  }\n}\n\n${fn('gamma')}\n${fn('delta')}`;
    const { chunks, symbols, parser, fallback } = parse('broken.ts', text, SMALL);
    expect(parser).toBe('tree-sitter');
    expect(fallback).toBeUndefined();
    expectWellFormed(text, chunks, SMALL);
    const names = symbols.map((s) => s.name);
    expect(names.slice(0, 2)).toEqual(['alpha', 'beta']);
    expect(names).toContain('gamma');
    expect(chunks.find((c) => c.symbol === 'alpha')).toMatchObject({ kind: 'function', startLine: 1 });
  });

  it('a missing closing brace: all lines still covered', () => {
    const text = `${fn('alpha')}\n${fn('beta')}\nfunction open(a: number) {\n  if (a > 1) {\n    return a;\n\n${fn('gamma')}\n${fn('delta')}`;
    const { chunks, symbols } = parse('open.ts', text, SMALL);
    expectWellFormed(text, chunks, SMALL);
    expect(symbols.map((s) => s.name).slice(0, 2)).toEqual(['alpha', 'beta']);
  });

  it('a file that is mostly errors falls back to line windows with parse_error, reported once', () => {
    const text = '}}}}\n))))\n]]]]\n'.repeat(50);
    const calls: unknown[][] = [];
    const parsed = parse('garbage.ts', text, CONFIG, (...args) => calls.push(args));
    expect(parsed).toMatchObject({ parser: 'window', fallback: 'parse_error', symbols: [], imports: [] });
    expect(calls).toEqual([['typescript', 'parse_error', 'garbage.ts', undefined]]);
    for (const c of parsed.chunks) expect(c.kind).toBe('window');
    expectWellFormed(text, parsed.chunks, CONFIG);
  });

  it('garbage in a Python file still covers every line', () => {
    const text = 'def ok():\n    return 1\n\n)))) ]]] :::\n    def\n  class (\n\ndef later(x):\n    return x\n';
    const parsed = parse('garbage.py', text);
    expectWellFormed(text, parsed.chunks, CONFIG);
    if (parsed.parser === 'tree-sitter') expect(parsed.symbols.map((s) => s.name)).toContain('ok');
  });
});

describe('Python', () => {
  const methods = Array.from({ length: 10 }, (_, i) => [
    '    @staticmethod',
    `    def m${i}(a, b):`,
    `        """Docstring ${i} with some words to make it longer than a line."""`,
    `        return a + b * ${i}`,
  ].join('\n'));
  const PY = [
    'import os',
    'from typing import Any',
    '',
    '@app.route("/jobs")',
    '@login_required',
    'def list_jobs(request: Any) -> list:',
    '    """Lists the jobs."""',
    '    return os.listdir(request.path)',
    '',
    '',
    'class X:',
    '    """A holder of methods."""',
    '',
    '    LIMIT = 10',
    '',
    methods.join('\n\n'),
    '',
  ].join('\n');

  it('a decorated function includes its decorator lines', () => {
    const { chunks, symbols } = parse('jobs.py', PY, { windowLines: 60, overlapLines: 8, maxBytes: 512 });
    expectWellFormed(PY, chunks, { windowLines: 60, overlapLines: 8, maxBytes: 512 });
    expect(chunks[0]).toMatchObject({ kind: 'imports', startLine: 1, endLine: 2 });
    expect(chunks[1]).toMatchObject({ kind: 'function', symbol: 'list_jobs', startLine: 4, signature: 'def list_jobs(request: Any) -> list' });
    expect(slice(PY, chunks[1]!)).toMatch(/^@app\.route\("\/jobs"\)\n@login_required\ndef list_jobs/);
    expect(symbols.find((s) => s.name === 'list_jobs')).toMatchObject({ kind: 'function', startLine: 6, exported: true });
  });

  it('methods of a large class have container `class X`, decorators included', () => {
    const config = { windowLines: 60, overlapLines: 8, maxBytes: 512 };
    const { chunks, symbols } = parse('jobs.py', PY, config);
    const head = chunks.find((c) => c.kind === 'class')!;
    expect(head).toMatchObject({ symbol: 'X', container: undefined, startLine: lineOf(PY, 'class X:') });
    const members = chunks.filter((c) => c.container === 'class X');
    expect(members.length).toBeGreaterThan(1);
    for (const m of members) {
      expect(m.kind).toBe('method');
      expect(PY.split('\n')[m.startLine - 1]).toBe('    @staticmethod');
    }
    // the class constant and the methods are each defined by one chunk (the head or a member)
    expect(chunks.flatMap((m) => m.defines ?? []).filter((n) => n !== 'X' && n !== 'list_jobs')).toEqual(['LIMIT', ...Array.from({ length: 10 }, (_, i) => `m${i}`)]);
    // no chunk boundary between a decorator and its def
    for (let i = 0; i < 10; i++) {
      const def = lineOf(PY, `def m${i}(`);
      expect(chunkAt(chunks, def - 1)).toEqual(chunkAt(chunks, def));
    }
    expect(symbols.filter((s) => s.kind === 'method').map((s) => s.container)).toEqual(Array(10).fill('X'));
    expect(symbols.find((s) => s.name === 'LIMIT')).toMatchObject({ kind: 'constant', container: 'X' });
  });
});

describe('script blocks of Vue, Svelte and HTML files', () => {
  const fnLines = (name: string, n: number): string[] => [`export function ${name}(n: number): string {`, ...Array.from({ length: n }, (_, i) => `  const part${i} = format(n, ${i}, 'some padding to fill the line');`), '  return String(n);', '}'];
  const VUE = [
    '<template>',
    '  <div class="counter">',
    '    <button @click="increment">{{ label }}</button>',
    '  </div>',
    '</template>',
    '',
    '<script lang="ts">',
    "import { defineComponent } from 'vue';",
    '',
    ...fnLines('formatCount', 12),
    '',
    'export default defineComponent({',
    '  data() {',
    '    return { count: 0 };',
    '  },',
    '});',
    '</script>',
    '',
    '<style scoped>',
    '.counter {',
    '  color: red;',
    '}',
    '</style>',
    '',
  ].join('\n');

  it('a Vue single-file component: symbols and imports from the script, chunks over template and style too', () => {
    const config = { windowLines: 60, overlapLines: 8, maxBytes: 512 };
    const parsed = parse('Counter.vue', VUE, config);
    expect(parsed.parser).toBe('tree-sitter');
    expect(parsed.symbols.map((s) => `${s.kind} ${s.name}`)).toEqual(['function formatCount', 'method data']);
    expect(parsed.symbols[0]).toMatchObject({ startLine: lineOf(VUE, 'export function formatCount'), signature: 'function formatCount(n: number): string' });
    expect(parsed.imports).toEqual([{ source: 'vue', names: ['defineComponent'], kind: 'import', line: 8 }]);
    expectWellFormed(VUE, parsed.chunks, config);
    expect(chunkAt(parsed.chunks, 1)).not.toEqual([]);
    expect(chunkAt(parsed.chunks, lineOf(VUE, '<style scoped>'))).not.toEqual([]);
    expect(parsed.chunks.some((c) => c.symbol === 'formatCount' && c.kind === 'function')).toBe(true);
  });

  it('a Svelte component with <script lang="ts">', () => {
    const text = [
      '<script lang="ts">',
      "  import { onMount } from 'svelte';",
      '  export let name: string;',
      '',
      '  function greet(who: string): string {',
      "    return 'Hello ' + who;",
      '  }',
      '</script>',
      '',
      '<h1>{greet(name)}</h1>',
      '',
      '<style>',
      '  h1 { color: purple; }',
      '</style>',
      '',
    ].join('\n');
    const parsed = parse('Hello.svelte', text);
    expect(parsed.parser).toBe('tree-sitter');
    expect(parsed.symbols).toEqual([expect.objectContaining({ name: 'greet', kind: 'function', startLine: 5, endLine: 7, signature: 'function greet(who: string): string' })]);
    expect(parsed.imports).toEqual([{ source: 'svelte', names: ['onMount'], kind: 'import', line: 2 }]);
    expectWellFormed(text, parsed.chunks, CONFIG);
    expect(parsed.chunks[parsed.chunks.length - 1]!.endLine).toBe(14);
  });

  it('an HTML file with an inline <script>; a <script type="application/json"> is not code', () => {
    const text = [
      '<!doctype html>',
      '<html>',
      '<head>',
      '  <script type="application/json">{"config": {"function": "notCode"}}</script>',
      '  <script>',
      '    function setupPage() {',
      "      document.title = 'ready';",
      '    }',
      '    class Widget {',
      '      render() { return 1; }',
      '    }',
      '  </script>',
      '</head>',
      '<body><p>hi</p></body>',
      '</html>',
      '',
    ].join('\n');
    const parsed = parse('index.html', text);
    expect(parsed.parser).toBe('tree-sitter');
    expect(parsed.symbols.map((s) => `${s.kind} ${s.container ?? ''}.${s.name}`)).toEqual(['function .setupPage', 'class .Widget', 'method Widget.render']);
    expectWellFormed(text, parsed.chunks, CONFIG);
  });

  it('an HTML file whose only script is JSON is chunked by line windows, with no fallback noted', () => {
    const text = '<html>\n<script type="application/json">{"a": 1}</script>\n<p>x</p>\n</html>\n';
    const calls: unknown[] = [];
    const parsed = parse('data.html', text, CONFIG, (...args) => calls.push(args));
    expect(parsed).toMatchObject({ parser: 'window', symbols: [] });
    expect(parsed.fallback).toBeUndefined();
    expect(calls).toEqual([]);
    expectWellFormed(text, parsed.chunks, CONFIG);
  });

  it('needs the JavaScript and TypeScript grammars', () => {
    for (const l of ['vue', 'svelte', 'html']) expect(grammarLanguages(l).sort()).toEqual(['javascript', 'typescript']);
    expect(grammarLanguages('typescript')).toEqual(['typescript']);
    expect(grammarLanguages('markdown')).toEqual([]);
  });
});

describe('fallbacks', () => {
  /** About 300 KB of generated TypeScript. */
  const generated = Array.from({ length: 4200 }, (_, i) => `export function gen${i}(a: number): number { return a * ${i} + ${i % 7}; }`).join('\n') + '\n';

  /** A budget too small for the generated file's parse; the query's is left alone. */
  const TINY = { parseWork: 100, queryWork: 1_000_000, queryMatches: 1_000_000 };

  it('parseCode over its work budget reports parse_budget, and the parser still works afterwards', () => {
    expect(generated.length).toBeGreaterThan(280_000);
    const ts = grammars.get('typescript')!;
    expect(parseCode(ts, input('gen.ts', generated), CONFIG, { limits: TINY })).toMatchObject({ ok: false, reason: 'parse_budget' });
    const after = parseCode(ts, input('ok.ts', 'export function fine() {}\n'), CONFIG, { limits: TINY });
    expect(after.ok && after.parsed.symbols.map((s) => s.name)).toEqual(['fine']);
  });

  it('createFileParser falls back to line windows on parse_budget and calls the listener', () => {
    const calls: Array<[string, FallbackReason, string]> = [];
    const parsed = createFileParser(CONFIG, grammars, (language, reason, path) => calls.push([language, reason, path]), { limits: TINY }).parse(input('gen.ts', generated));
    expect(parsed).toMatchObject({ parser: 'window', fallback: 'parse_budget', symbols: [], imports: [] });
    expect(calls).toEqual([['typescript', 'parse_budget', 'gen.ts']]);
    expect(parsed.chunks.length).toBeGreaterThan(10);
    for (const c of parsed.chunks) expect(c.kind).toBe('window');
    // the window chunker still names the definitions it sees
    expect(parsed.chunks[0]!.defines?.[0]).toBe('gen0');
    expect(parse('gen.ts', generated).parser).toBe('tree-sitter');
  });

  it('a language whose grammar is not loaded: grammar_unavailable and window chunks', () => {
    const calls: unknown[][] = [];
    const parser = createFileParser(CONFIG, new Map(), (...args) => calls.push(args));
    const parsed = parser.parse(input('a.ts', 'export function f() {}\n'));
    expect(parsed).toMatchObject({ parser: 'window', fallback: 'grammar_unavailable', symbols: [] });
    expect(parsed.chunks).toEqual([expect.objectContaining({ kind: 'window', startLine: 1, endLine: 1, symbol: 'f' })]);
    expect(calls).toEqual([['typescript', 'grammar_unavailable', 'a.ts']]);
    // a language with no grammar at all is not a fallback
    expect(parser.parse(input('a.txt', 'plain text\n'))).toMatchObject({ parser: 'window' });
    expect(calls).toHaveLength(1);
  });

  it('syntax off (no grammars): line windows with no fallback noted', () => {
    const calls: unknown[] = [];
    const parsed = createFileParser(CONFIG, undefined, (...args) => calls.push(args)).parse(input('a.ts', 'export function f() {}\n'));
    expect(parsed.parser).toBe('window');
    expect(parsed.fallback).toBeUndefined();
    expect(calls).toEqual([]);
  });
});

describe('determinism', () => {
  const CASES: Array<[string, string]> = [
    ['foo.ts', CLASS],
    ['many.js', Array.from({ length: 80 }, (_, i) => `function f${i}(a) {\n  return a + ${i};\n}\n`).join('\n')],
    ['jobs.py', 'import os\n\n@cache\ndef f(x):\n    return x\n\nclass A:\n    def m(self):\n        return 1\n'],
    ['crlf.ts', 'export class R {\r\n  a(): number {\r\n    return 1;\r\n  }\r\n}\r\n'],
  ];

  it('the same input twice gives identical output, with one parser or two', () => {
    const one = createFileParser(SMALL, grammars);
    for (const [path, text] of CASES) {
      const first = one.parse(input(path, text));
      const again = one.parse(input(path, text));
      const fresh = createFileParser(SMALL, grammars).parse(input(path, text));
      expect(again).toEqual(first);
      expect(fresh).toEqual(first);
    }
  });

  it('grammars loaded afresh give the same output', async () => {
    const before = CASES.map(([path, text]) => parse(path, text, SMALL));
    resetGrammarCache();
    const reloaded = await loadGrammars(['typescript', 'javascript', 'python']);
    expect(reloaded.get('typescript')).not.toBe(grammars.get('typescript'));
    const after = CASES.map(([path, text]) => createFileParser(SMALL, reloaded).parse(input(path, text)));
    expect(after).toEqual(before);
  });
});

/** Regressions: bugs the tests above and the property test found, fixed in ast-chunker.ts. */
describe('regressions', () => {
  const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = compute(${i}, 'some padding text');`).join('\n');

  // was: segmentsOf() gives a definition that starts on the last line of the previous one
  // (`}, b = () => {`) to the previous segment, extending it with no size check: the whole of `b`
  // (3.3 KB here) lands in one chunk, over the 1024-byte hard clamp.
  it('two definitions sharing a line are still cut to maxBytes', () => {
    const text = `const a = () => {\n${body(10)}\n}, b = () => {\n${body(60)}\n};\n`;
    const { chunks } = parse('shared.ts', text, SMALL);
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(SMALL.maxBytes);
  });

  // was: same cause, when the previous segment is a piece of a long line (exact bytes): its line
  // range is extended to the lines of `b` but its bytes are not, so lines 2-7 are in no chunk's
  // bytes (not searchable), and the chunk's endLine disagrees with its endByte.
  it('a definition after a long one-line definition keeps its lines in some chunk', () => {
    const text = `function a() { return "${'x'.repeat(3000)}"; } function b() {\n${body(5)}\n}\n`;
    const { chunks } = parse('oneline.ts', text, SMALL);
    for (const line of [2, 4, 7]) {
      const start = byteOfLine(text, line);
      expect(chunks.some((c) => c.startByte <= start && start < c.endByte), `bytes of line ${line} in a chunk`).toBe(true);
    }
    for (const c of chunks) if (c.endLine > c.startLine) expect(c.startByte).toBe(byteOfLine(text, c.startLine));
  });

  // was: mergeSmall() glues a closing line (`}`) to the chunk above it whatever that chunk's
  // size; a piece just under maxBytes (one line of 1023 bytes) then becomes 1025 bytes.
  it('a closing brace merged into the piece above never pushes it over maxBytes', () => {
    const line = `  const s = "${'x'.repeat(1023 - 15)}";`;
    const text = `function f() {\n  let a = 1;\n${line}\n}\n`;
    const { chunks } = parse('closing.ts', text, SMALL);
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(SMALL.maxBytes);
  });
});
