/**
 * The native tree-sitter binding (npm `tree-sitter` + the grammars' npm packages, N-API prebuilds)
 * against the WebAssembly runtime scry ships (`web-tree-sitter` + `@repomix/tree-sitter-wasms`),
 * on one thread, same files, same run (issue 19, native part). Neither package is a dependency of
 * scry: install them beside it without saving first (the grammars' optional peer ranges name older
 * `tree-sitter` versions, hence `--legacy-peer-deps`):
 *
 *   npm install --no-save --legacy-peer-deps tree-sitter@0.25.1 tree-sitter-javascript@0.25.0 \
 *     tree-sitter-typescript@0.23.2 [tree-sitter-python@0.25.0 tree-sitter-go@0.25.0 ...]
 *   npx tsx bench/parse-native.ts [--root DIR] [--files=2000]   (default root: the corpus)
 *
 * Per file, alternating which backend goes first (a load change hits both alike), CPU time of:
 *   - parse: `parser.parse(text)` with the work-meter callback scry passes;
 *   - query: the definitions/imports/documentation query's `matches` on that tree;
 *   - ids: the identifiers query's `captures` (what `collectNameUses` starts from);
 *   - structure: `createFileParser(chunk, grammars).parse()`, all of what `prepareBatch` does per
 *     file minus FTS fields, with the native grammars adapted to the shape `parseCode` expects.
 * And parity: files whose syntax tree (S-expression) differs, whose parse reported progress a
 * different number of times (the parse budget counts those), and whose ParsedFile (chunks, symbols,
 * imports, docs) differs. Prints a table per language; writes nothing.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Node, Query, Tree } from 'web-tree-sitter';
import type { FileCandidate } from '../src/core/file.js';
import { resolveConfig } from '../src/config/resolve.js';
import { readCandidate } from '../src/discover/read.js';
import { walk } from '../src/discover/walk.js';
import { createFileParser } from '../src/parse/chunker.js';
import { loadGrammars, type LoadedGrammar } from '../src/parse/grammars.js';
import { languageSpec } from '../src/parse/languages/registry.js';
import { corpusAt, ensureCorpus } from './corpus.js';
import { parseArgs } from './results.js';

/** The npm package (and its export, when it has several grammars) of each scry language. */
const PACKAGES: Readonly<Record<string, readonly [string, string?]>> = {
  javascript: ['tree-sitter-javascript'], typescript: ['tree-sitter-typescript', 'typescript'], tsx: ['tree-sitter-typescript', 'tsx'],
  python: ['tree-sitter-python'], go: ['tree-sitter-go'], rust: ['tree-sitter-rust'], java: ['tree-sitter-java'],
  c: ['tree-sitter-c'], cpp: ['tree-sitter-cpp'], csharp: ['tree-sitter-c-sharp'], ruby: ['tree-sitter-ruby'], php: ['tree-sitter-php', 'php'],
};

/** The part of the `tree-sitter` package's API used here (it ships its own d.ts, but is not a dependency). */
interface NativeTree { rootNode: Node & { toString(): string } }
interface NativeMatch { pattern: number; captures: Array<{ name: string; node: Node }> }
interface NativeQuery { matches(node: Node): NativeMatch[]; captures(node: Node): Array<{ name: string; node: Node }> }
interface NativeParser {
  setLanguage(language: unknown): void;
  parse(text: string, old: null, options?: { progressCallback?: () => boolean }): NativeTree | undefined;
  reset(): void;
}
interface NativeModule { new (): NativeParser; Query: new (language: unknown, source: string) => NativeQuery }

interface Native { parser: NativeParser; query: NativeQuery; identifiers: NativeQuery | undefined; adapted: LoadedGrammar }

const require = createRequire(import.meta.url);

function loadNativeModule(): { ts: NativeModule; gypBuild: (root: string) => Record<string, unknown> } {
  try {
    const ts = require('tree-sitter') as NativeModule;
    const gypBuild = require(require.resolve('node-gyp-build', { paths: [require.resolve('tree-sitter')] })) as (root: string) => Record<string, unknown>;
    return { ts, gypBuild };
  } catch {
    console.error('the `tree-sitter` package is not installed: see the install line at the top of bench/parse-native.ts');
    process.exit(2);
  }
}

/** The query sources `grammars.ts` builds for a grammar (same patterns, same order). */
function querySources(wasm: LoadedGrammar): { code: string; identifiers: string } {
  const { spec, language } = wasm;
  const pattern = (types: readonly string[], name: string): string => {
    const known = types.filter((t) => language.idForNodeType(t, true) !== null);
    return known.length > 0 ? `[${known.map((t) => `(${t})`).join(' ')}] @${name}` : '';
  };
  const code = `${spec.definitions}\n${spec.imports ?? ''}\n${pattern(spec.comments, 'comment')}\n${spec.docstrings ?? ''}`;
  const ids = pattern(spec.identifiers, 'id');
  return { code, identifiers: ids ? `${ids}\n${pattern(spec.calls, 'call')}` : '' };
}

/**
 * A native grammar in the shape of a LoadedGrammar: trees get a no-op `delete` (the binding frees
 * them on GC) and matches are renamed `pattern` → `patternIndex`. The binding's `matches` takes no
 * progress callback, so the query work budget never ticks on this backend.
 */
function nativeGrammar(mod: ReturnType<typeof loadNativeModule>, wasm: LoadedGrammar): Native | undefined {
  const entry = PACKAGES[wasm.spec.language];
  if (!entry) return undefined;
  let binding: Record<string, unknown>;
  try {
    binding = mod.gypBuild(dirname(require.resolve(`${entry[0]}/package.json`)));
  } catch {
    return undefined;
  }
  const language = entry[1] ? binding[entry[1]] : binding;
  const parser = new mod.ts();
  parser.setLanguage(language);
  const sources = querySources(wasm);
  const query = new mod.ts.Query(language, sources.code);
  const identifiers = sources.identifiers ? new mod.ts.Query(language, sources.identifiers) : undefined;
  const adaptedParser = {
    parse: (text: string, old: null, options?: { progressCallback?: () => boolean }) => {
      const tree = parser.parse(text, old, options);
      return tree ? Object.assign(tree, { delete: () => {} }) : null;
    },
    reset: () => parser.reset(),
  };
  const adaptedQuery = { matches: (node: Node) => query.matches(node).map((m) => ({ patternIndex: m.pattern, captures: m.captures })) };
  const adapted = {
    ...wasm,
    parser: adaptedParser as unknown as LoadedGrammar['parser'],
    query: adaptedQuery as unknown as Query,
    identifiers: identifiers as unknown as Query | undefined,
  };
  return { parser, query, identifiers, adapted };
}

interface Row { files: number; chars: number; cpu: Record<string, number>; treeDiffs: number; tickDiffs: number; parsedDiffs: number }

const STEPS = ['parse', 'query', 'ids', 'structure'] as const;

function cpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

function timed<T>(row: Row, key: string, fn: () => T): T {
  const c0 = cpuMs();
  const value = fn();
  row.cpu[key] = (row.cpu[key] ?? 0) + cpuMs() - c0;
  return value;
}

/** `n` items spread evenly over the list (the walk is sorted: a prefix would be one package). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (n === 0 || n >= items.length) return [...items];
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

function fmtRow(name: string, r: Row): string {
  const ratio = (k: string) => ((r.cpu[`wasm.${k}`] ?? 0) / Math.max(1e-9, r.cpu[`native.${k}`] ?? 0)).toFixed(2);
  const ms = (k: string) => `${Math.round(r.cpu[`wasm.${k}`] ?? 0)}/${Math.round(r.cpu[`native.${k}`] ?? 0)}`;
  const pq = ((r.cpu['wasm.parse']! + r.cpu['wasm.query']!) / (r.cpu['native.parse']! + r.cpu['native.query']!)).toFixed(2);
  return `${name.padEnd(11)} ${String(r.files).padStart(5)} ${(r.chars / 1e6).toFixed(2).padStart(6)}  ${STEPS.map((k) => `${ms(k).padStart(11)} ${ratio(k).padStart(5)}x`).join(' ')}  ${pq.padStart(5)}x   ${r.treeDiffs}/${r.tickDiffs}/${r.parsedDiffs}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const root = values.has('root') ? corpusAt(values.get('root')!).root : ensureCorpus().root;
  const limit = Number(values.get('files') ?? 2000);
  const mod = loadNativeModule();
  const config = await resolveConfig({ root, db: join(root, '..', 'parse-native-unused.db') });
  const files: FileCandidate[] = [];
  walk({ root, maxFileBytes: config.maxFileBytes, ignore: config.ignore, denylist: config.denylist }, { file: (c) => files.push(c), skip: () => {} });
  const wasm = await loadGrammars(Object.keys(PACKAGES));
  const native = new Map<string, Native>();
  for (const [language, g] of wasm) {
    const n = nativeGrammar(mod, g);
    if (n) native.set(language, n);
  }
  const selected = spread(files.filter((f) => native.has(f.language)), limit);
  const wasmFiles = createFileParser(config.chunk, wasm);
  const nativeFiles = createFileParser(config.chunk, new Map([...native].map(([k, n]) => [k, n.adapted])));
  const rows = new Map<string, Row>();
  const examples: string[] = [];
  for (let i = 0; i < selected.length; i++) {
    const f = selected[i]!;
    const read = readCandidate(root, f, config.maxFileBytes);
    if (!read.ok || !languageSpec(read.language)) continue;
    const w = wasm.get(read.language);
    const n = native.get(read.language);
    if (!w || !n) continue;
    const row = rows.get(read.language) ?? { files: 0, chars: 0, cpu: {}, treeDiffs: 0, tickDiffs: 0, parsedDiffs: 0 };
    rows.set(read.language, row);
    row.files++;
    row.chars += read.text.length;
    const input = { path: f.path, language: read.language, contentType: read.contentType, text: read.text };
    const ticks = { wasm: 0, native: 0 };
    const runWasm = () => {
      const tree = timed(row, 'wasm.parse', () => w.parser.parse(read.text, null, { progressCallback: () => (ticks.wasm++, false) })) as Tree;
      timed(row, 'wasm.query', () => w.query.matches(tree.rootNode));
      timed(row, 'wasm.ids', () => w.identifiers?.captures(tree.rootNode));
      const sexp = tree.rootNode.toString();
      tree.delete();
      return { sexp, parsed: JSON.stringify(timed(row, 'wasm.structure', () => wasmFiles.parse(input))) };
    };
    const runNative = () => {
      const tree = timed(row, 'native.parse', () => n.parser.parse(read.text, null, { progressCallback: () => (ticks.native++, false) }))!;
      timed(row, 'native.query', () => n.query.matches(tree.rootNode));
      timed(row, 'native.ids', () => n.identifiers?.captures(tree.rootNode));
      return { sexp: tree.rootNode.toString(), parsed: JSON.stringify(timed(row, 'native.structure', () => nativeFiles.parse(input))) };
    };
    let a: ReturnType<typeof runWasm>;
    let b: ReturnType<typeof runNative>;
    if (i % 2 === 0) {
      a = runWasm();
      b = runNative();
    } else {
      b = runNative();
      a = runWasm();
    }
    if (a.sexp !== b.sexp) row.treeDiffs++;
    if (ticks.wasm !== ticks.native) row.tickDiffs++;
    if (a.parsed !== b.parsed) {
      row.parsedDiffs++;
      if (examples.length < 10) examples.push(`${read.language} ${f.path}${a.sexp !== b.sexp ? ' (tree differs)' : ''}`);
    }
  }
  const total: Row = { files: 0, chars: 0, cpu: {}, treeDiffs: 0, tickDiffs: 0, parsedDiffs: 0 };
  for (const r of rows.values()) {
    total.files += r.files;
    total.chars += r.chars;
    total.treeDiffs += r.treeDiffs;
    total.tickDiffs += r.tickDiffs;
    total.parsedDiffs += r.parsedDiffs;
    for (const [k, v] of Object.entries(r.cpu)) total.cpu[k] = (total.cpu[k] ?? 0) + v;
  }
  console.log(`${root}: ${total.files} files, Node ${process.version}; CPU ms wasm/native and wasm÷native per step; parse+query; files differing tree/progress reports/ParsedFile`);
  console.log(`language    files  Mchars  ${STEPS.map((k) => k.padStart(18)).join(' ')}  parse+query  diffs`);
  for (const [name, r] of [...rows].sort((x, y) => y[1].chars - x[1].chars)) console.log(fmtRow(name, r));
  console.log(fmtRow('all', total));
  for (const e of examples) console.log(`  ParsedFile differs: ${e}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
