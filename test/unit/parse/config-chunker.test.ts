/**
 * The config chunker (JSON, YAML, TOML by key path). Expected chunks are written as
 * `kind lines symbol [container] {defines}` so a failure reads like a diff of the outline.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify as yamlStringify } from 'yaml';
import type { ChunkDraft } from '../../../src/core/chunk.js';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { chunkConfig } from '../../../src/parse/config-chunker.js';

/** The production defaults (config/schema.ts). */
const DEFAULTS: ChunkConfig = { windowLines: 60, overlapLines: 8, maxBytes: 4096 };
/** Small limits, so short inputs exercise splitting and merging. */
const SMALL: ChunkConfig = { windowLines: 10, overlapLines: 2, maxBytes: 512 };

const lines = (...ls: string[]): string => ls.join('\n') + '\n';
const summary = (chunks: readonly ChunkDraft[]): string[] =>
  chunks.map((c) => `${c.kind} ${c.startLine}-${c.endLine} ${c.symbol ?? '-'} [${c.container ?? ''}] {${(c.defines ?? []).join(', ')}}`);
/** Without defines, for long outlines. */
const outline = (chunks: readonly ChunkDraft[]): string[] => chunks.map((c) => `${c.kind} ${c.startLine}-${c.endLine} ${c.symbol ?? '-'} [${c.container ?? ''}]`);
const golden = (name: string): string => readFileSync(new URL(`../../golden/parse/${name}`, import.meta.url), 'utf8');

describe('chunkConfig: JSON', () => {
  it('cuts by top-level key; comments above a key and the braces fold into neighbours', () => {
    expect(summary(chunkConfig(golden('tsconfig-like.json'), 'json', { ...DEFAULTS, windowLines: 20, maxBytes: 1024 }))).toEqual([
      'key 1-5 $schema [] {$schema, display}',
      'key 7-26 compilerOptions [] {compilerOptions, compilerOptions.target, compilerOptions.module, compilerOptions.moduleResolution, compilerOptions.lib, compilerOptions.types, compilerOptions.strict, compilerOptions.noUncheckedIndexedAccess, compilerOptions.exactOptionalPropertyTypes, compilerOptions.verbatimModuleSyntax, compilerOptions.declaration, compilerOptions.sourceMap, compilerOptions.outDir, compilerOptions.paths}',
      'key 27-34 include [] {include, exclude, references}',
    ]);
  });

  it('merges small neighbours up to half the limits (production defaults)', () => {
    expect(outline(chunkConfig(golden('tsconfig-like.json'), 'json', DEFAULTS))).toEqual(['key 1-28 $schema []', 'key 29-34 references []']);
  });

  it('splits large values by nested keys and arrays of objects by element index; cuts a huge leaf line', () => {
    const chunks = chunkConfig(golden('big-values.json'), 'json', DEFAULTS);
    expect(outline(chunks)).toEqual([
      'key 1-9 name []',
      ...['typescript 10-36', 'python 37-62', 'go 63-88', 'rust 89-114', 'java 115-140', 'csharp 141-166', 'ruby 167-192', 'kotlin 193-219'].map((s) => {
        const [lang, range] = s.split(' ');
        return `key ${range} languages.${lang} [languages]`;
      }),
      'key 220-244 samples[0] [samples]',
      ...Array.from({ length: 12 }, (_, i) => `key ${245 + i * 24}-${268 + i * 24} samples[${3 + i * 3}] [samples]`),
      'key 533-541 samples[39] [samples]',
      'key 542-545 thresholds []',
      'key 546-546 notes []',
      'key 546-546 notes []',
    ]);
    expect(chunks[1]!.defines).toEqual(['languages.typescript', 'languages.typescript.extensions', 'languages.typescript.grammar', 'languages.typescript.queries', 'languages.typescript.fixtures']);
    // array elements are split targets, but only their keys are names: samples[0].id, not samples[0][...]
    expect(chunks[9]!.defines).toContain('samples[2].weight');
    // the 5000-byte `notes` line is cut at the byte clamp; the final `}` is not a chunk of its own
    expect(chunks.slice(-2).map((c) => c.endByte - c.startByte)).toEqual([4096, 917]);
  });

  it('recurses through several levels when each level is still too large', () => {
    const inner = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v'.repeat(20)]));
    const text = JSON.stringify({ a: { b: { c: inner, d: inner } }, z: 1 }, null, 2);
    // a.b.c (10 lines) is over windowLines, so is a, then a.b: split down to the k* keys, which merge in fives
    expect(outline(chunkConfig(text, 'json', SMALL))).toEqual([
      'key 1-5 a.b.c.k0 [a.b.c]',
      'key 6-10 a.b.c.k1 [a.b.c]',
      'key 11-13 a.b.c.k6 [a.b.c]',
      'key 14-18 a.b.d.k0 [a.b.d]',
      'key 19-21 a.b.d.k4 [a.b.d]',
      'key 22-25 a.b.d.k7 [a.b.d]',
      'key 26-27 z []',
    ]);
  });

  it('chunks a top-level array of objects by element; arrays of scalars and scalars fall back to windows', () => {
    expect(summary(chunkConfig(lines('[', '  {"name": "a"},', '  {"name": "b", "id": 2}', ']'), 'json', SMALL))).toEqual([
      'key 1-4 [0] [] {[0], [0].name, [1], [1].name, [1].id}',
    ]);
    expect(summary(chunkConfig(lines('[', '  1,', '  2', ']'), 'json', SMALL))).toEqual(['window 1-4 - [] {}']);
    expect(summary(chunkConfig('"just a string"\n', 'json', SMALL))).toEqual(['window 1-1 - [] {}']);
  });

  it('keeps keys on one line in one chunk', () => {
    expect(summary(chunkConfig('{"a": 1, "b": {"c": 2}}', 'json', SMALL))).toEqual(['key 1-1 a [] {a, b, b.c}']);
  });

  it('falls back to windows on syntax errors and truncated files, never throwing', () => {
    expect(summary(chunkConfig(lines('{', '  "a": 1,', '  "b": '), 'json', SMALL))).toEqual(['window 1-3 - [] {}']);
    expect(summary(chunkConfig(lines('{', '  "a" 1', '}'), 'json', SMALL))).toEqual(['window 1-3 - [] {}']);
  });

  it('accepts a byte order mark and duplicate keys', () => {
    expect(summary(chunkConfig('\uFEFF{\n  "a": 1,\n  "a": 2\n}\n', 'json', SMALL))).toEqual(['key 1-4 a [] {a}']);
    expect(summary(chunkConfig('\uFEFFa: 1\na: 2\n', 'yaml', SMALL))).toEqual(['key 1-2 a [] {a}']);
    expect(summary(chunkConfig('\uFEFFa = 1\n[t]\n  b = 2\n', 'toml', SMALL))).toEqual(['key 1-3 a [] {a, t, t.b}']);
  });

  it('returns nothing for empty, blank and punctuation-only files', () => {
    expect(chunkConfig('', 'json', SMALL)).toEqual([]);
    expect(chunkConfig('\n  \n', 'json', SMALL)).toEqual([]);
    expect(chunkConfig('{}\n', 'json', SMALL)).toEqual([]);
  });

  it('handles CRLF: whole lines, byte ranges without the terminator', () => {
    const text = '{\r\n  "a": 1,\r\n  "b": {\r\n    "c": 2\r\n  }\r\n}\r\n';
    const chunks = chunkConfig(text, 'json', SMALL);
    expect(summary(chunks)).toEqual(['key 1-2 a [] {a}', 'key 3-6 b [] {b, b.c}']);
    expect(Buffer.from(text).subarray(chunks[0]!.startByte, chunks[0]!.endByte).toString()).toBe('{\r\n  "a": 1,');
    expect(chunks[1]!.endByte).toBe(text.length - 2);
  });

  it('survives 10,000 levels of nesting (window fallback) and chunks ~1 MB linearly', () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const chunks = chunkConfig(deep, 'json', DEFAULTS);
    expect(chunks.every((c) => c.kind === 'window' && c.endByte - c.startByte <= DEFAULTS.maxBytes)).toBe(true);

    const big = Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`key${i}`, { id: i, name: `n${i}`, nested: { x: [1, 2, { z: i }] } }]));
    const text = JSON.stringify(big, null, 2);
    expect(text.length).toBeGreaterThan(900_000);
    const out = chunkConfig(text, 'json', DEFAULTS);
    expect(out.every((c) => c.kind === 'key')).toBe(true);
    const defined = new Set(out.flatMap((c) => c.defines ?? []));
    expect(Object.keys(big).every((k) => defined.has(k))).toBe(true);
  });
});

describe('chunkConfig: YAML', () => {
  it('cuts compose.yaml by key, splitting services by service and a large service by its keys', () => {
    expect(summary(chunkConfig(golden('compose.yaml'), 'yaml', { ...DEFAULTS, windowLines: 20, maxBytes: 1024 }))).toEqual([
      'key 1-9 name [] {name, x-logging, x-logging.driver, x-logging.options}',
      'key 11-19 services.api.build [services.api] {services.api.build, services.api.build.context, services.api.build.dockerfile, services.api.build.args, services.api.command}',
      'key 20-29 services.api.ports [services.api] {services.api.ports, services.api.environment, services.api.environment.SCRY_DB, services.api.environment.SCRY_LOG_LEVEL, services.api.environment.SCRY_EMBED_PROVIDER, services.api.environment.SCRY_EMBED_URL, services.api.volumes}',
      'key 30-38 services.api.depends_on [services.api] {services.api.depends_on, services.api.depends_on.embedder, services.api.healthcheck, services.api.healthcheck.test, services.api.healthcheck.interval, services.api.healthcheck.timeout, services.api.healthcheck.retries, services.api.logging}',
      'key 40-53 services.embedder [services] {services.embedder, services.embedder.image, services.embedder.command, services.embedder.environment, services.embedder.volumes, services.embedder.healthcheck, services.embedder.logging}',
      'key 55-64 services.watcher [services] {services.watcher, services.watcher.build, services.watcher.command, services.watcher.volumes, services.watcher.restart}',
      'key 66-72 volumes [] {volumes, volumes.index-data, volumes.model-cache, networks, networks.default}',
    ]);
    expect(outline(chunkConfig(golden('compose.yaml'), 'yaml', DEFAULTS))).toEqual(['key 1-9 name []', 'key 11-64 services []', 'key 66-72 volumes []']);
  });

  it('gives a comment block to the key below it', () => {
    const text = lines('a: 1', 'b: 2', '', '# about c', '# more about c', 'c:', '  d: 3', '  e: 4');
    expect(summary(chunkConfig(text, 'yaml', { ...SMALL, windowLines: 10 }))).toEqual(['key 1-2 a [] {a, b}', 'key 4-8 c [] {c, c.d, c.e}']);
  });

  it('prefixes key paths of documents after the first with their index; empty documents add nothing', () => {
    const text = lines('---', '# first', 'a: 1', 'b:', '  c: 2', '---', '# second', 'kind: Service', 'meta:', '  name: x', '---', '...');
    expect(summary(chunkConfig(text, 'yaml', SMALL))).toEqual([
      'key 1-5 a [] {a, b, b.c}',
      'key 6-8 [1].kind [[1]] {[1].kind}',
      'key 9-12 [1].meta [[1]] {[1].meta, [1].meta.name}',
    ]);
  });

  it('chunks a top-level sequence (an Ansible playbook) by element', () => {
    const text = lines('- hosts: all', '  tasks:', '    - name: a', '      shell: x', '- hosts: db', '  roles: [pg]');
    expect(summary(chunkConfig(text, 'yaml', { ...SMALL, windowLines: 6 }))).toEqual([
      'key 1-4 [0] [] {[0], [0].hosts, [0].tasks}',
      'key 5-6 [1] [] {[1], [1].hosts, [1].roles}',
    ]);
  });

  it('keeps block scalars with their key and splits an oversized one by lines', () => {
    const body = Array.from({ length: 14 }, (_, i) => `  line ${i}`);
    const text = lines('a: 1', 'script: |', ...body, 'z: 2');
    expect(outline(chunkConfig(text, 'yaml', SMALL))).toEqual(['key 1-1 a []', 'key 2-11 script []', 'key 12-16 script []', 'key 17-17 z []']);
  });

  it('falls back to windows on errors; scalars and comment-only files are windows too', () => {
    expect(summary(chunkConfig(lines('a: [1, 2', 'b: 3'), 'yaml', SMALL))).toEqual(['window 1-2 - [] {}']);
    expect(summary(chunkConfig(lines('a: 1', ' b: 2', 'c'), 'yaml', SMALL))).toEqual(['window 1-3 - [] {}']);
    expect(summary(chunkConfig('just a scalar\n', 'yaml', SMALL))).toEqual(['window 1-1 - [] {}']);
    expect(summary(chunkConfig('# only a comment\n', 'yaml', SMALL))).toEqual(['window 1-1 - [] {}']);
    expect(chunkConfig('', 'yaml', SMALL)).toEqual([]);
    const deepFlow = '{a: '.repeat(10_000) + '1' + '}'.repeat(10_000);
    expect(chunkConfig(deepFlow, 'yaml', DEFAULTS).every((c) => c.kind === 'window')).toBe(true);
  });

  it('handles CRLF', () => {
    const text = 'a: 1\r\nb:\r\n  c: 2\r\n';
    expect(summary(chunkConfig(text, 'yaml', SMALL))).toEqual(['key 1-3 a [] {a, b, b.c}']);
    expect(chunkConfig(text, 'yaml', SMALL)[0]!.endByte).toBe(text.length - 2);
  });
});

describe('chunkConfig: TOML', () => {
  it('cuts pyproject.toml by table; [[arrays of tables]] are indexed; multi-line strings and arrays stay whole', () => {
    expect(summary(chunkConfig(golden('pyproject.toml'), 'toml', { ...DEFAULTS, windowLines: 20, maxBytes: 1024 }))).toEqual([
      'key 1-4 build-system [] {build-system, build-system.requires, build-system.build-backend}',
      'key 6-23 project [] {project, project.name, project.version, project.description, project.readme, project.requires-python, project.license, project.authors, project.dependencies}',
      'key 25-33 project.optional-dependencies [] {project.optional-dependencies, project.optional-dependencies.dev, project.scripts, project.scripts.scry-client, tool.ruff, tool.ruff.line-length, tool.ruff.target-version}',
      'key 35-42 tool.ruff.lint [] {tool.ruff.lint, tool.ruff.lint.select, tool.ruff.lint.ignore, tool.mypy.overrides[0], tool.mypy.overrides[0].module, tool.mypy.overrides[0].ignore_missing_imports}',
      'key 44-46 tool.mypy.overrides[1] [tool.mypy.overrides] {tool.mypy.overrides[1], tool.mypy.overrides[1].module, tool.mypy.overrides[1].ignore_missing_imports}',
      'key 48-54 tool.pytest.ini_options [tool.pytest] {tool.pytest.ini_options, tool.pytest.ini_options.addopts, tool.pytest.ini_options.testpaths, tool.pytest.ini_options.markers}',
    ]);
  });

  it('resolves nested arrays of tables against the latest parent element; quoted and dotted keys', () => {
    const text = lines('a = 1', '"quoted.key" = 2', "b . 'c d' = 3", '[[fruit]]', 'name = "apple"', '[fruit.physical]', 'color = "red"',
      '[[fruit.variety]]', 'name = "fuji"', '[[fruit]]', 'name = "pear"', '[[fruit.variety]]', 'name = "conference"');
    expect(summary(chunkConfig(text, 'toml', { ...SMALL, windowLines: 4 }))).toEqual([
      'key 1-2 a [] {a, quoted.key}',
      'key 3-3 b.c d [b] {b.c d}',
      'key 4-5 fruit[0] [fruit] {fruit[0], fruit[0].name}',
      'key 6-7 fruit[0].physical [fruit[0]] {fruit[0].physical, fruit[0].physical.color}',
      'key 8-9 fruit[0].variety[0] [fruit[0].variety] {fruit[0].variety[0], fruit[0].variety[0].name}',
      'key 10-11 fruit[1] [fruit] {fruit[1], fruit[1].name}',
      'key 12-13 fruit[1].variety[0] [fruit[1].variety] {fruit[1].variety[0], fruit[1].variety[0].name}',
    ]);
  });

  it('never splits inside a multi-line string or array, even one that looks like headers and brackets', () => {
    const text = lines('[t]', 'doc = """', '[not.a.table]', "it's \\\"\"\" still", '"""', "lit = '''", '[[nor.this]] ]]', "'''",
      'arr = [', '  "]", # ] in a comment', "  '[',", ']', 'z = 1');
    expect(summary(chunkConfig(text, 'toml', SMALL))).toEqual([
      'key 1-5 t.doc [t] {t.doc}',
      'key 6-8 t.lit [t] {t.lit}',
      'key 9-13 t.arr [t] {t.arr, t.z}',
    ]);
  });

  it('falls back to windows on lines that are not TOML and on values left open', () => {
    expect(summary(chunkConfig(lines('a = 1', 'not toml'), 'toml', SMALL))).toEqual(['window 1-2 - [] {}']);
    expect(summary(chunkConfig(lines('a = [', '  1,'), 'toml', SMALL))).toEqual(['window 1-2 - [] {}']);
    expect(summary(chunkConfig(lines('a = """', 'text'), 'toml', SMALL))).toEqual(['window 1-2 - [] {}']);
    expect(summary(chunkConfig(lines('a = "x'), 'toml', SMALL))).toEqual(['window 1-1 - [] {}']);
    expect(summary(chunkConfig(lines('[a', 'b = 1'), 'toml', SMALL))).toEqual(['window 1-2 - [] {}']);
    expect(summary(chunkConfig(lines('a ='), 'toml', SMALL))).toEqual(['window 1-1 - [] {}']);
    expect(chunkConfig('', 'toml', SMALL)).toEqual([]);
  });

  it('handles CRLF and comment-only files', () => {
    expect(summary(chunkConfig('a = 1\r\nb = 2\r\n[c]\r\nd = 3\r\n', 'toml', SMALL))).toEqual(['key 1-4 a [] {a, b, c, c.d}']);
    expect(summary(chunkConfig('# nothing yet\n', 'toml', SMALL))).toEqual(['window 1-1 - [] {}']);
  });
});

describe('chunkConfig: properties', () => {
  const keyArb = fc.oneof(fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/), fc.string({ maxLength: 6 }));
  const scalarArb = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.tuple(fc.constantFrom('x', 'é', '日'), fc.integer({ min: 100, max: 3000 })).map(([c, n]) => c.repeat(n)),
    fc.array(fc.stringMatching(/^[a-z ]{0,40}$/), { maxLength: 4 }).map((ls) => ls.join('\n')),
  );
  const { value: valueArb } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalarArb, fc.array(tie('value'), { maxLength: 6 }), tie('object')),
    object: fc.dictionary(keyArb, tie('value'), { maxKeys: 8 }),
  }));
  const objectArb = fc.dictionary(keyArb, valueArb, { minKeys: 1, maxKeys: 10 });
  const configArb: fc.Arbitrary<ChunkConfig> = fc
    .tuple(fc.integer({ min: 10, max: 60 }), fc.integer({ min: 512, max: 2048 }))
    .map(([windowLines, maxBytes]) => ({ windowLines, overlapLines: Math.floor(windowLines / 4), maxBytes }));

  /** Valid input is cut by key: in order, disjoint, whole lines (or pieces of one long line), within maxBytes, every non-punctuation line covered. */
  function check(text: string, chunks: readonly ChunkDraft[], config: ChunkConfig): void {
    const buf = Buffer.from(text);
    const ls = text.split(/(?<=\n)/);
    const starts: number[] = [];
    let at = 0;
    for (const l of ls) {
      starts.push(at);
      at += Buffer.byteLength(l);
    }
    const covered = new Array<boolean>(ls.length).fill(false);
    let prevEnd = 0;
    for (const c of chunks) {
      expect(c.kind).toBe('key');
      expect(c.startByte).toBeGreaterThanOrEqual(prevEnd);
      expect(c.endByte).toBeLessThanOrEqual(buf.length);
      prevEnd = c.endByte;
      // stricter than "within maxBytes unless a single line": a long line is cut at the clamp too
      expect(c.endByte - c.startByte).toBeLessThanOrEqual(config.maxBytes);
      if (c.startLine !== c.endLine) expect(c.startByte).toBe(starts[c.startLine - 1]);
      for (let l = c.startLine; l <= c.endLine; l++) covered[l - 1] = true;
    }
    ls.forEach((l, i) => {
      if (!/^[\s{}[\](),]*$/.test(l)) expect(covered[i], `line ${i + 1}: ${l.slice(0, 60)}`).toBe(true);
    });
  }

  it('JSON.stringify(obj, null, 2): ordered, disjoint, bounded, covering', () => {
    fc.assert(
      fc.property(objectArb, configArb, (obj, config) => {
        const text = JSON.stringify(obj, null, 2);
        check(text, chunkConfig(text, 'json', config), config);
      }),
      { numRuns: 200 },
    );
  });

  it('yaml.stringify(obj): ordered, disjoint, bounded, covering', () => {
    fc.assert(
      fc.property(objectArb, configArb, (obj, config) => {
        const text = yamlStringify(obj);
        check(text, chunkConfig(text, 'yaml', config), config);
      }),
      { numRuns: 200 },
    );
  });
});
