/**
 * Task-aware retrieval on a real index (issue 20): the failure fixtures of test/golden/failures
 * indexed as a repository, and the real tool output captured from them (the temp dir the logs
 * were captured in, shown as /ROOT, replaced by this index's root). Each task's pack holds the
 * evidence its strategy promises, with a `why`; a failure's tests and frames are never dropped.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, loadTokenCounter, type Engine, type TaskContext } from '../../src/index.js';
import { runTool } from '../../src/tools/run-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { runCli } from '../helpers/cli.js';
import { expectGoldenText } from '../helpers/golden-text.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const GOLDEN = join(import.meta.dirname, '../golden/failures');

const pieces = (pack: TaskContext) => pack.sections.evidence.flatMap((g) => g.pieces);
/** The piece showing a line of a file (adjacent chunks of one file are merged into one piece). */
const covering = (pack: TaskContext, path: string, line: number) => pieces(pack).find((p) => p.path === path && p.kind === 'chunk' && p.startLine <= line && line <= p.endLine);

describe('engine.context with a task', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let root: string;
  let db: string;
  const log = (name: string): string => readFileSync(join(GOLDEN, 'logs', `${name}.log`), 'utf8').replaceAll('/ROOT', root);

  beforeAll(async () => {
    t = tempDir('scry-task-');
    root = join(t.dir, 'repo');
    cpSync(join(GOLDEN, 'fixtures'), root, { recursive: true });
    db = join(t.dir, 'index.db');
    engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    await engine.index();
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('fix from a pytest log: the failing tests and the frames\' functions are pinned, placed on indexed files', async () => {
    const pack = await engine.context('', { task: 'fix', log: log('pytest') });
    expect(pack.task).toBe('fix');
    expect(pack.failures.map((f) => `${f.kind} ${f.file}:${f.line}`)).toEqual(['test python/test_calc.py:5', 'test python/test_calc.py:9', 'frame python/calc.py:6', 'frame python/calc.py:10', 'test python/test_calc.py:14']);
    const ps = pieces(pack);
    const test = covering(pack, 'python/test_calc.py', 5);
    expect(test?.pinned).toBe(true);
    expect(test?.whys?.[0]).toMatch(/^failing test: test_add/);
    const ratio = ps.find((p) => p.path === 'python/calc.py' && p.pinned && p.startLine <= 10 && 10 <= p.endLine);
    expect(ratio?.whys).toContainEqual(expect.stringMatching(/^in the failure stack trace: python\/calc.py:10 ZeroDivisionError/));
    expect(ps.filter((p) => p.pinned).every((p) => p.path === 'python/test_calc.py' || p.path === 'python/calc.py')).toBe(true);
    expect(pack.sections.task.goal).toBe('fix: assert -1 == 5');
    expect(pack.steps.map((s) => s.source)).toEqual(['failing-tests', 'failure-frames', 'diagnostics', 'error-symbols', 'diff', 'selection-calls', 'imports', 'tests', 'signatures', 'search']);
  });

  it('pinned pieces survive a budget too small for anything else', async () => {
    const counter = await loadTokenCounter();
    const pack = await engine.context('', { task: 'fix', log: log('unittest'), tokens: 400 });
    expect(counter.count(pack.text)).toBeLessThanOrEqual(400);
    const pinned = pieces(pack).filter((p) => p.pinned);
    expect(pinned.length).toBeGreaterThan(0);
    expect(pack.omitted.some((o) => pinned.some((p) => o.label.startsWith(`${p.path}:${p.startLine}`)))).toBe(false);
  });

  it('fix from tsc output: the diagnostics are kept and the code at each is evidence', async () => {
    const pack = await engine.context('', { task: 'fix', log: log('tsc') });
    expect(pack.sections.workspace.diagnostics.map((d) => `${d.path}:${d.line}`)).toEqual(['ts/bad.ts:7', 'ts/bad.ts:10']);
    expect(covering(pack, 'ts/bad.ts', 7)?.whys?.join(' ')).toMatch(/at a diagnostic: Property 'years'/);
  });

  it('fix from a Java stack trace maps package paths onto the indexed file', async () => {
    const pack = await engine.context('', { task: 'fix', log: log('java') });
    expect(new Set(pack.failures.map((f) => f.file))).toEqual(new Set(['java/com/example/Crash.java']));
    expect(pieces(pack).some((p) => p.path === 'java/com/example/Crash.java' && p.pinned)).toBe(true);
  });

  it('test: the existing tests of the current file come first', async () => {
    const pack = await engine.context('', { task: 'test', current: { path: 'python/calc.py', line: 1 } });
    const first = pieces(pack).filter((p) => p.whys?.some((w) => w.startsWith('test of the current file')));
    expect(first.map((p) => p.path)).toContain('python/test_calc.py');
  });

  it('refactor: the code using the current file (its importers and callers) is evidence', async () => {
    const pack = await engine.context('', { task: 'refactor', current: { path: 'js/math.js', line: 5 } });
    const users = pieces(pack).filter((p) => p.whys?.some((w) => w.startsWith('uses the current file')));
    expect(users.map((p) => p.path)).toContain('js/crash.js');
  });

  it('explain: the functions the code at the cursor calls', async () => {
    const pack = await engine.context('', { task: 'explain', current: { path: 'python/calc.py', line: 6 } });
    expect(covering(pack, 'python/calc.py', 10)?.whys).toContain('called by the code at the cursor: ratio()');
    expect(pack.steps[0]).toEqual({ source: 'selection-calls', found: 1 });
  });

  it('complete: round 2 looks up what the draft mentions, else what round 1 found', async () => {
    const withDraft = await engine.context('', { task: 'complete', current: { path: 'python/crash.py', line: 12 }, draft: 'return ratio(config["n"], 1)' });
    expect(withDraft.rounds.map((r) => r.from)).toEqual(['query', 'draft']);
    expect(withDraft.rounds[1]!.identifiers).toContain('ratio');
    expect(covering(withDraft, 'python/calc.py', 10)?.whys).toContain('round 2: ratio');
    // the Java `main` is no answer to a Python `main()`: calls resolve in the current file's language
    expect(pieces(withDraft).some((p) => p.path.endsWith('.java'))).toBe(false);
    const without = await engine.context('', { task: 'complete', current: { path: 'python/crash.py', line: 12 } });
    expect(without.rounds[1]!.from).toBe('evidence');
  });

  it('ranks each task\'s evidence as its strategy says (golden: citation, kind, pin, why per piece)', async () => {
    // a ranking golden (STYLE.md habit 7): a change to a strategy or a step shows up as a diff to review
    const requests: [string, string, Parameters<Engine['context']>[1]][] = [
      ['fix pytest', '', { task: 'fix', log: log('pytest') }],
      ['fix cargo', '', { task: 'fix', log: log('cargo-test') }],
      ['fix tsc', '', { task: 'fix', log: log('tsc') }],
      ['test calc.py', '', { task: 'test', current: { path: 'python/calc.py', line: 5 } }],
      ['refactor math.js', '', { task: 'refactor', current: { path: 'js/math.js', line: 5 } }],
      ['explain calc.py:6', '', { task: 'explain', current: { path: 'python/calc.py', line: 6 } }],
      ['complete crash.py:12', '', { task: 'complete', current: { path: 'python/crash.py', line: 12 }, draft: 'return ratio(config["n"], 1)' }],
      ['qa', 'where is the ratio of two numbers computed', {}],
    ];
    const out: string[] = [];
    for (const [label, query, options] of requests) {
      const pack = await engine.context(query, { tokens: 3000, ...options });
      out.push(`## ${label}: ${pack.steps.map((s) => `${s.source} ${s.found}`).join(', ')}`);
      for (const p of pieces(pack).filter((x) => x.kind !== 'summary')) out.push(`${p.path}:${p.startLine}-${p.endLine} ${p.kind}${p.pinned ? ' pinned' : ''} | ${(p.whys ?? []).join(' | ')}`);
    }
    expectGoldenText(join(GOLDEN, 'task-packs.txt'), out.join('\n'), 'npx vitest run test/integration/task-context.test.ts');
  });

  it('rejects bad task arguments with INVALID_ARGUMENT before retrieving', async () => {
    await expect(engine.context('', { task: 'fix' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'query' } });
    await expect(engine.context('x', { task: 'deploy' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'task' } });
    await expect(engine.context('x', { selection: { startLine: 3, endLine: 4 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', data: { name: 'selection' } });
  });

  it('retrieve_context takes task and log, and refuses bad ones as invalid_arguments', async () => {
    const ctx: ToolContext = { engine, writePolicy: 'read-only' };
    const ok = await runTool('retrieve_context', { task: 'fix', log: log('jest') }, ctx);
    expect(ok.ok).toBe(true);
    const data = ok.data as { task: string; failures: { file: string }[]; pieces: { cite: string; why?: string; pinned?: boolean }[] };
    expect(data.task).toBe('fix');
    expect(data.failures.map((f) => f.file)).toContain('js/math.test.js');
    expect(data.pieces.some((p) => p.pinned && p.cite.startsWith('js/math.test.js') && /failing test/.test(p.why ?? ''))).toBe(true);
    for (const bad of [{ task: 'fix' }, { query: 'x', task: 'ship' }, { query: 'x', selection_start: 2 }, { query: 'x', diagnostics: [{ path: 'a', line: 0, message: 'm' }] }]) {
      const env = await runTool('retrieve_context', bad, ctx);
      expect(env.error, JSON.stringify(bad)).toBe('invalid_arguments');
    }
  });

  it('scry context --task fix --log - reads the log from stdin', async () => {
    const r = await runCli(['context', '--task', 'fix', '--log', '-', '--db', db, '--tokens', '3000'], { cwd: t.dir, stdin: log('vitest') });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/why: "?failing test: math > adds numbers/);
    expect(r.stdout).toMatch(/pinned: "?true/);
    expect(r.stderr).toMatch(/task fix · \d+ failure items in the repository/);
    const bad = await runCli(['context', '--task', 'fix', '--log', '-', '--diff', '-', '--db', db], { cwd: t.dir, stdin: '' });
    expect(bad.code).toBe(2);
    const badTask = await runCli(['context', 'x', '--task', 'ship', '--db', db], { cwd: t.dir });
    expect(badTask.code).toBe(2);
  });
});
