/**
 * Cases for bench/task-context.ts, mined from one repository's history: commits that change one
 * source file S and a test file T together (both indexed at HEAD). See that file for the tasks.
 */
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import type { ContextTask, Engine, SymbolRow } from '../src/index.js';
import { isTestPath } from '../src/search/rank.js';

export interface Span {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

export interface TaskCase {
  readonly id: string;
  readonly task: ContextTask;
  readonly query: string;
  readonly current?: { readonly path: string; readonly line: number } | undefined;
  readonly log?: string | undefined;
  readonly goldFiles: readonly string[];
  readonly goldSpans: readonly Span[];
}

interface Commit {
  readonly hash: string;
  readonly subject: string;
  readonly files: readonly string[];
}

const CODE_EXT = /\.(?:py|go|js|mjs|cjs|ts|tsx|java|rs|kt)$/;
const FN_KINDS = new Set(['function', 'method']);
const DECL_RE = /(?:\bdef|\bfunc(?:\s*\([^)]*\))?|\bfunction|\bfn|\bclass|\bvoid|\bpublic|\bprivate|\bprotected|\bstatic)\s+(?:[\w<>[\],]+\s+)*?([A-Za-z_]\w*)\s*[(<]/g;

function git(gitDir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

function commits(gitDir: string): Commit[] {
  const out: Commit[] = [];
  for (const block of git(gitDir, ['log', '--no-merges', '-n', '3000', '--format=@@%H\t%s', '--name-only']).split('@@').slice(1)) {
    const [head, ...files] = block.split('\n').filter((l) => l.trim() !== '');
    const [hash, subject] = head!.split('\t');
    out.push({ hash: hash!, subject: subject ?? '', files });
  }
  return out;
}

/** Names declared in a commit's changed lines or named by its hunk headers (git's function context). */
function changedNames(gitDir: string, hash: string, path: string): Set<string> {
  const diff = git(gitDir, ['show', '--format=', '-U0', hash, '--', path]);
  const names = new Set<string>();
  for (const line of diff.split('\n')) {
    const header = /^@@ [^@]+ @@ ?(.*)$/.exec(line);
    const text = header ? header[1]! : /^[+-](?![+-])/.test(line) ? line.slice(1) : '';
    for (const m of text.matchAll(DECL_RE)) names.add(m[1]!);
    // a test in JS is named by its title: `it('adds numbers', ...)` / `test("...")`
  }
  return names;
}

async function definitions(engine: Engine, path: string, names: ReadonlySet<string>): Promise<SymbolRow[]> {
  const o = await engine.outline(path).catch(() => undefined);
  return (o?.symbols ?? []).filter((s) => FN_KINDS.has(s.kind) && names.has(s.name));
}

/** A runner's output for one failing test, in the format of the test file's language. */
export function failureLog(test: SymbolRow): string {
  const line = test.startLine + 1;
  const qualified = test.container ? `${test.container}.${test.name}` : test.name;
  if (test.path.endsWith('.py')) {
    const id = test.container ? `${test.path}::${test.container}::${test.name}` : `${test.path}::${test.name}`;
    return `${'_'.repeat(20)} ${qualified} ${'_'.repeat(20)}\n${test.path}:${line}: in ${test.name}\n    assert result == expected\nE   AssertionError: assert False\n==== short test summary info ====\nFAILED ${id} - AssertionError: assert False\n`;
  }
  if (test.path.endsWith('.go')) return `--- FAIL: ${test.name} (0.00s)\n    ${basename(test.path)}:${line}: unexpected result\nFAIL\n`;
  if (test.path.endsWith('.rs')) return `---- tests::${test.name} stdout ----\nthread 'tests::${test.name}' panicked at ${test.path}:${line}:9:\nassertion \`left == right\` failed\n`;
  if (test.path.endsWith('.java') || test.path.endsWith('.kt')) {
    const parts = test.path.replace(/\.(?:java|kt)$/, '').split('/');
    const at = parts.lastIndexOf('java');
    const cls = (at >= 0 ? parts.slice(at + 1) : parts.slice(-1)).join('.');
    return `${test.name}(${cls}) failed\njava.lang.AssertionError: expected true\n\tat org.junit.Assert.fail(Assert.java:89)\n\tat ${cls}.${test.name}(${basename(test.path)}:${line})\n`;
  }
  return `  ● ${qualified}\n\n    expect(received).toBe(expected)\n\n      at Object.<anonymous> (${test.path}:${line}:5)\n`;
}

/** Definitions in other files that a function calls, by name (the explain gold). */
async function callees(engine: Engine, fn: SymbolRow): Promise<SymbolRow[]> {
  const body = (await engine.readFile(fn.path, { startLine: fn.startLine, endLine: fn.endLine })).text;
  const names = [...new Set([...body.matchAll(/(?<![\w$])([A-Za-z_]\w{2,})\s*\(/g)].map((m) => m[1]!))].filter((n) => n !== fn.name).slice(0, 40);
  const out: SymbolRow[] = [];
  for (const name of names) {
    const hits = await engine.symbols(name, { limit: 3 });
    const def = hits.find((h) => h.match === 'exact' && h.name === name && h.path !== fn.path && !isTestPath(h.path) && h.language === fn.language);
    if (def !== undefined && !out.some((o) => o.path === def.path && o.startLine === def.startLine)) out.push(def);
  }
  return out;
}

const spanOf = (s: SymbolRow): Span => ({ path: s.path, startLine: s.startLine, endLine: s.endLine });

/** Up to `perTask` cases of each task from the repository's newest qualifying commits (one per source file). */
export async function mineCases(engine: Engine, gitDir: string, perTask: number): Promise<TaskCase[]> {
  const indexed = new Set((await engine.listFiles({ limit: 10_000 })).files.map((f) => f.path));
  const out: TaskCase[] = [];
  const count = (t: ContextTask): number => out.filter((c) => c.task === t).length;
  const usedSources = new Set<string>();
  for (const c of commits(gitDir)) {
    if (['fix', 'test', 'refactor', 'explain'].every((t) => count(t as ContextTask) >= perTask)) break;
    const files = c.files.filter((f) => indexed.has(f) && CODE_EXT.test(f));
    const tests = files.filter(isTestPath);
    const sources = files.filter((f) => !isTestPath(f));
    if (sources.length !== 1 || tests.length === 0 || c.files.length > 6 || usedSources.has(sources[0]!)) continue;
    const src = sources[0]!;
    const test = tests[0]!;
    const srcFns = await definitions(engine, src, changedNames(gitDir, c.hash, src));
    const testFns = await definitions(engine, test, changedNames(gitDir, c.hash, test));
    if (srcFns.length === 0) continue;
    usedSources.add(src);
    const id = `${c.hash.slice(0, 10)}`;
    const at = { path: src, line: srcFns[0]!.startLine };
    if (testFns.length > 0 && count('fix') < perTask) out.push({ id, task: 'fix', query: c.subject, log: failureLog(testFns[0]!), goldFiles: [src], goldSpans: srcFns.map(spanOf) });
    if (count('test') < perTask) out.push({ id, task: 'test', query: c.subject, current: at, goldFiles: [test], goldSpans: testFns.map(spanOf) });
    const others = files.filter((f) => f !== src);
    if (count('refactor') < perTask) out.push({ id, task: 'refactor', query: c.subject, current: at, goldFiles: others, goldSpans: [] });
    const called = await callees(engine, srcFns[0]!);
    if (called.length > 0 && count('explain') < perTask) {
      out.push({ id, task: 'explain', query: `explain ${srcFns[0]!.name}`, current: { path: src, line: srcFns[0]!.startLine + 1 }, goldFiles: [...new Set(called.map((d) => d.path))], goldSpans: called.map(spanOf) });
    }
  }
  return out;
}
