/**
 * buildContextPack: the layout (a golden file; `UPDATE_GOLDEN=1` rewrites it, review the diff),
 * the hard budget and the never-drop parts as a property over random inputs, and the allocation
 * and overflow rules one at a time. Budgets are checked with the real o200k counter.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isEngineError } from '../../../src/core/errors.js';
import { buildContextPack, type ContextPackInput, type ContextPackOptions } from '../../../src/context/context-pack.js';
import { citation, mergeEvidence, splitLines, type EvidenceInput } from '../../../src/context/evidence-merge.js';
import { loadTokenCounter, type TokenCounter } from '../../../src/context/tokens.js';

const GOLDEN = fileURLToPath(new URL('../../golden/context/context-pack.txt', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});

const norm = (s: string): string => s.replace(/\r\n|\r/g, '\n');
const lines = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}: value = compute(${i});`).join('\n');

const SMALL: ContextPackInput = {
  task: {
    goal: 'Fix the SQL injection in login()',
    acceptanceCriteria: ['Tests pass'],
    constraints: ['Do not change the API: keep login(user, pass)'],
    constitution: ['Always use parameterized queries'],
  },
  workspace: {
    currentFile: { path: 'src/auth/login.ts', text: 'import { db } from "../db";\n\nexport function login(user, pass) {\n  return db.query("SELECT * FROM users WHERE name = " + user);\n}\n', cursorLine: 4 },
    diagnostics: [{ path: 'src/auth/login.ts', line: 4, message: 'Potential SQL injection', severity: 'error', code: 'SEC01' }],
    branch: 'feature/auth-fix',
    openFiles: ['src/auth/login.ts', 'src/db.ts'],
  },
  artifacts: [{ kind: 'plan', title: 'Fix plan', text: '1. Pass params to db.query\n2. Add a test for quotes in names\n' }],
  evidence: [
    { path: 'src/db.ts', startLine: 5, endLine: 7, text: 'export function query(sql: string, params?: unknown[]) {\n  return pool.query(sql, params);\n}\n', hash: 'a1b2c3', symbol: 'query' },
    { path: 'src/validate.ts', startLine: 12, endLine: 12, text: 'export function validateInput(input: string): boolean', kind: 'signature', symbol: 'validateInput' },
    { path: 'src/db.ts', startLine: 8, endLine: 9, text: '\n  // callers must pass user input in params', hash: 'd4e5f6' },
  ],
  history: [
    { role: 'user', text: 'Fix the authentication bug' },
    { role: 'assistant', text: "I'll read login.ts first:\n- the query concatenates input" },
  ],
};

describe('buildContextPack layout', () => {
  it('matches the golden file test/golden/context/context-pack.txt', () => {
    const pack = buildContextPack(SMALL, { counter });
    if (UPDATE) {
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, pack.text);
      return;
    }
    const fix = 'run `UPDATE_GOLDEN=1 npx vitest run test/unit/context/context-pack.test.ts` and review the diff';
    if (!existsSync(GOLDEN)) throw new Error(`missing ${GOLDEN}: ${fix}`);
    expect(pack.text, `the context pack layout changed: ${fix}`).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('reports what it kept as data, and its token counts', () => {
    const pack = buildContextPack(SMALL, { counter });
    expect(pack.omitted).toEqual([]);
    expect(pack.sections.evidence.map((g) => [g.path, g.pieces.map(citation)])).toEqual([
      ['src/db.ts', ['src/db.ts:5-9']],
      ['src/validate.ts', ['src/validate.ts:12-12']],
    ]);
    expect(pack.sections.workspace.currentFile).toMatchObject({ startLine: 1, endLine: 5, totalLines: 5, cursorLine: 4 });
    expect(pack.tokens.total).toBe(counter.count(pack.text));
    expect(pack.budget).toBe(12_000);
    expect(pack.allocations).toEqual({ task: 500, workspace: 1_000, artifacts: 1_000, evidence: 8_000, history: 1_500 });
    const parsed = parse(pack.text) as { evidence: { cite: string; hashes: string[] }[] };
    expect(parsed.evidence[0]).toMatchObject({ cite: 'src/db.ts:5-9', hashes: ['a1b2c3', 'd4e5f6'] });
  });
});

// ---- property: hard budget, never-drop parts, drop order, citations ----

const unit = fc.constantFrom(...'abcxyz  09:#-|"\'{}()\t\n'.split(''), '\r\n', 'é', '✓');
const text = fc.string({ unit, maxLength: 60 });
const line = fc.string({ unit: fc.constantFrom(...'abcxyz  09:#-|"\'{}()'.split('')), minLength: 1, maxLength: 30 });
const path = fc.constantFrom('a.ts', 'b.ts', 'src/c.md', 'd e.py');

const evidenceArb: fc.Arbitrary<EvidenceInput> = fc
  .record({
    path,
    startLine: fc.integer({ min: 1, max: 30 }),
    body: fc.array(line, { minLength: 1, maxLength: 6 }),
    hash: fc.option(fc.constantFrom('h1', 'h2', 'h3', 'h4', 'h5', 'h6'), { nil: undefined }),
    kind: fc.option(fc.constantFrom('chunk' as const, 'signature' as const, 'summary' as const), { nil: undefined }),
    symbol: fc.option(line, { nil: undefined }),
  })
  .map(({ body, ...e }) => ({ ...e, endLine: e.startLine + body.length - 1, text: body.join('\n') }));

const inputArb: fc.Arbitrary<ContextPackInput> = fc.record({
  task: fc.record({ goal: text, constraints: fc.array(text, { maxLength: 2 }), constitution: fc.array(text, { maxLength: 2 }) }),
  workspace: fc.record({
    currentFile: fc.option(
      fc.array(line, { minLength: 1, maxLength: 40 }).chain((ls) =>
        // a slice of a larger file placed at `firstLine`, or the whole file
        fc.option(fc.integer({ min: 2, max: 5_000 }), { nil: undefined }).chain((firstLine) =>
          fc.record({ path, text: fc.constant(ls.join('\n')), cursorLine: fc.integer({ min: 1, max: ls.length }).map((c) => c + (firstLine ?? 1) - 1), firstLine: fc.constant(firstLine) }),
        ),
      ),
      { nil: undefined },
    ),
    diagnostics: fc.array(fc.record({ path, line: fc.nat(99), message: text }), { maxLength: 2 }),
    branch: fc.option(line, { nil: undefined }),
    openFiles: fc.array(line, { maxLength: 3 }),
  }),
  artifacts: fc.array(fc.record({ kind: line, title: line, text }), { maxLength: 3 }),
  evidence: fc.array(evidenceArb, { maxLength: 8 }),
  history: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), text }), { maxLength: 6 }),
});

const optionsArb = fc.record({
  budget: fc.integer({ min: 20, max: 1_500 }),
  allocations: fc.option(fc.record({ evidence: fc.nat(600), history: fc.nat(300) }, { requiredKeys: [] }), { nil: undefined }),
  maxPiecesPerFile: fc.integer({ min: 1, max: 3 }),
});

interface Parsed {
  task: { goal: string; constraints?: string[]; constitution?: string[] };
  workspace?: { current_file?: { text: string }; diagnostics?: { message: string }[] };
  evidence?: { cite: string; hash?: string; hashes?: string[] }[];
  history?: { text: string }[];
}

function checkPack(input: ContextPackInput, options: Omit<ContextPackOptions, 'counter'>): void {
  const pack = buildContextPack(input, { ...options, counter });
  expect(counter.count(pack.text)).toBeLessThanOrEqual(options.budget!);
  expect(pack.tokens.total).toBe(counter.count(pack.text));
  const parsed = parse(pack.text) as Parsed;
  // never dropped: the task spec with its constitution, the cursor line, every diagnostic
  expect(parsed.task.goal).toBe(norm(input.task.goal));
  expect(parsed.task.constitution ?? []).toEqual(input.task.constitution);
  expect(parsed.task.constraints ?? []).toEqual(input.task.constraints);
  expect((parsed.workspace?.diagnostics ?? []).map((d) => d.message)).toEqual(input.workspace!.diagnostics!.map((d) => norm(d.message)));
  const file = input.workspace!.currentFile;
  if (file !== undefined) {
    const w = pack.sections.workspace.currentFile!;
    expect(w.startLine).toBeLessThanOrEqual(file.cursorLine!);
    expect(w.endLine).toBeGreaterThanOrEqual(file.cursorLine!);
    const first = file.firstLine ?? 1;
    expect(parsed.workspace!.current_file!.text).toBe(splitLines(file.text).slice(w.startLine - first, w.endLine - first + 1).join('\n'));
  }
  // history goes oldest first: what is kept is the newest tail
  const history = input.history!;
  const kept = pack.sections.history.map((h) => h.index);
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => history.length - kept.length + i));
  expect((parsed.history ?? []).map((h) => h.text)).toEqual(kept.map((i) => norm(history[i]!.text)));
  // evidence goes lowest-ranked first: what is kept is a prefix of the priority order, each piece cited
  const order = mergeEvidence(input.evidence!, { maxPiecesPerFile: options.maxPiecesPerFile! }).pieces;
  const keptPieces = pack.sections.evidence.flatMap((g) => g.pieces);
  expect(new Set(keptPieces)).toEqual(new Set(order.slice(0, keptPieces.length)));
  const cited = (parsed.evidence ?? []).map((e) => JSON.stringify([e.cite, e.hashes ?? (e.hash !== undefined ? [e.hash] : [])]));
  expect(cited.sort()).toEqual(keptPieces.map((p) => JSON.stringify([citation(p), p.hashes])).sort());
}

describe('buildContextPack budget (property)', () => {
  it('never exceeds the budget, keeps the never-drop parts, drops oldest history and lowest-ranked evidence', () => {
    let fitted = 0;
    fc.assert(
      fc.property(inputArb, optionsArb, (input, options) => {
        try {
          checkPack(input, options);
          fitted++;
        } catch (err) {
          if (!isEngineError(err, 'TOO_LARGE')) throw err;
          // thrown only when the never-drop part alone is over budget: at exactly its size it fits
          const size = err.data.size as number;
          expect(size).toBeGreaterThan(options.budget);
          checkPack(input, { ...options, budget: size });
        }
      }),
      { numRuns: 250 },
    );
    expect(fitted).toBeGreaterThan(100);
  });
});

// ---- the rules one at a time ----

function evidencePieces(n: number, linesEach: number): EvidenceInput[] {
  return Array.from({ length: n }, (_, i) => ({ path: `f${i}.ts`, startLine: 1, endLine: linesEach, text: lines(linesEach, `f${i}`) }));
}

function historyEntries(n: number, linesEach: number): { role: string; text: string }[] {
  return Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', text: lines(linesEach, `m${i}`) }));
}

describe('buildContextPack allocation and overflow', () => {
  it('scales the default allocations to the budget and takes explicit ones as given', () => {
    const pack = buildContextPack({ task: { goal: 'g' } }, { counter, budget: 6_000, allocations: { history: 10 } });
    expect(pack.allocations).toEqual({ task: 250, workspace: 500, artifacts: 500, evidence: 4_000, history: 10 });
  });

  it('gives budget other sections left unused to evidence first', () => {
    const input = { task: { goal: 'g' }, evidence: evidencePieces(40, 12), history: historyEntries(20, 4) };
    const pack = buildContextPack(input, { counter, budget: 3_000, allocations: { evidence: 100, history: 200 } });
    expect(pack.tokens.bySection.evidence).toBeGreaterThan(2_000);
    expect(pack.tokens.bySection.history).toBeLessThanOrEqual(200);
    expect(pack.tokens.bySection.history).toBeGreaterThan(0);
    expect(pack.tokens.total).toBeLessThanOrEqual(3_000);
    // with no history at all, evidence alone fills what its allocation left
    const alone = buildContextPack({ ...input, history: [] }, { counter, budget: 3_000, allocations: { evidence: 100, history: 200 } });
    expect(alone.tokens.bySection.evidence).toBeGreaterThan(pack.tokens.bySection.evidence);
  });

  it('on overflow drops the oldest history before any evidence, then the lowest-ranked evidence', () => {
    const evidence = evidencePieces(4, 3);
    const history = historyEntries(6, 3);
    const base = buildContextPack({ task: { goal: 'g' }, evidence, history }, { counter, budget: 2_000 });
    expect(base.omitted).toEqual([]);
    const needed = base.tokens.total;
    const historyCost = base.tokens.bySection.history;
    // a budget just under the full pack: some history goes, oldest first; evidence stays
    const tight = buildContextPack({ task: { goal: 'g' }, evidence, history }, { counter, budget: needed - 40, allocations: { evidence: 2_000, history: 2_000 } });
    expect(tight.sections.evidence.flatMap((g) => g.pieces)).toHaveLength(4);
    const lostHistory = tight.omitted.filter((o) => o.section === 'history').map((o) => o.label);
    expect(lostHistory.length).toBeGreaterThan(0);
    expect(lostHistory).toEqual(['#0 user', '#1 assistant', '#2 user'].slice(0, lostHistory.length));
    expect(tight.sections.history.map((h) => h.index)).toEqual([0, 1, 2, 3, 4, 5].slice(lostHistory.length));
    // without room for any history, evidence goes last-ranked first
    const tighter = buildContextPack({ task: { goal: 'g' }, evidence, history }, { counter, budget: needed - historyCost - 40, allocations: { evidence: 2_000, history: 2_000 } });
    expect(tighter.sections.history).toEqual([]);
    expect(tighter.omitted.filter((o) => o.section === 'evidence')).toEqual([{ section: 'evidence', label: 'f3.ts:1-3', reason: 'budget' }]);
  });

  it('trims the current-file window around the cursor, shifting it at the file edges', () => {
    const file = { path: 'big.ts', text: lines(500, 'big'), cursorLine: 250 };
    const pack = buildContextPack({ task: { goal: 'g' }, workspace: { currentFile: file } }, { counter, budget: 1_000 });
    const w = pack.sections.workspace.currentFile!;
    expect(w.endLine - w.startLine).toBeGreaterThan(20);
    expect(w.endLine - w.startLine + 1).toBeLessThan(500);
    expect(Math.abs(250 - w.startLine - (w.endLine - 250))).toBeLessThanOrEqual(1);
    expect(pack.omitted).toEqual([{ section: 'workspace', label: `big.ts outside lines ${w.startLine}-${w.endLine}`, reason: 'trimmed' }]);
    const top = buildContextPack({ task: { goal: 'g' }, workspace: { currentFile: { ...file, cursorLine: 2 } } }, { counter, budget: 1_000 });
    expect(top.sections.workspace.currentFile).toMatchObject({ startLine: 1, endLine: w.endLine - w.startLine + 1 });
    const capped = buildContextPack({ task: { goal: 'g' }, workspace: { currentFile: file } }, { counter, budget: 100_000, windowLines: 11 });
    expect(capped.sections.workspace.currentFile).toMatchObject({ startLine: 245, endLine: 255 });
  });

  it('places a slice of a large file by its first line: the window and total are the whole file\'s', () => {
    // lines 1001-1100 of a 5,000-line file, cursor on 1050
    const text = lines(100, 'slice');
    const file = { path: 'huge.ts', text, cursorLine: 1050, firstLine: 1001, totalLines: 5000 };
    const capped = buildContextPack({ task: { goal: 'g' }, workspace: { currentFile: file } }, { counter, budget: 100_000, windowLines: 11 });
    const w = capped.sections.workspace.currentFile!;
    expect(w).toMatchObject({ startLine: 1045, endLine: 1055, totalLines: 5000, cursorLine: 1050 });
    expect(w.text).toBe(text.split('\n').slice(44, 55).join('\n'));
    expect(parse(capped.text).workspace.current_file).toMatchObject({ lines: '1045-1055', total_lines: 5000, cursor_line: 1050 });
    expect(capped.omitted).toEqual([{ section: 'workspace', label: 'huge.ts outside lines 1045-1055', reason: 'trimmed' }]);
    // the whole slice fits: the window is the slice, still short of the file
    const all = buildContextPack({ task: { goal: 'g' }, workspace: { currentFile: file } }, { counter, budget: 100_000 });
    expect(all.sections.workspace.currentFile).toMatchObject({ startLine: 1001, endLine: 1100, totalLines: 5000 });
    // a cursor outside the slice stands on its nearest edge
    const edge = buildContextPack({ task: { goal: 'g' }, workspace: { currentFile: { ...file, cursorLine: 4000 } } }, { counter, budget: 100_000, windowLines: 3 });
    expect(edge.sections.workspace.currentFile).toMatchObject({ startLine: 1098, endLine: 1100 });
  });

  it('keeps the window over branch and open files when the workspace is short of tokens', () => {
    const ws = { currentFile: { path: 'a.ts', text: lines(300, 'a'), cursorLine: 150 }, branch: 'main', openFiles: ['x.ts'] };
    const pack = buildContextPack({ task: { goal: 'g' }, workspace: ws }, { counter, budget: 600 });
    expect(pack.sections.workspace.branch).toBeUndefined();
    expect(pack.omitted.map((o) => o.label)).toEqual([expect.stringMatching(/^a\.ts outside lines/), 'branch', 'open_files']);
    const roomy = buildContextPack({ task: { goal: 'g' }, workspace: { ...ws, currentFile: { ...ws.currentFile, text: lines(5, 'a'), cursorLine: 3 } } }, { counter, budget: 600 });
    expect(roomy.sections.workspace).toMatchObject({ branch: 'main', openFiles: ['x.ts'] });
  });

  it('trims the last artifact that does not fit by lines, and drops the ones after it', () => {
    const artifacts = [
      { kind: 'plan', title: 'Plan', text: lines(3, 'plan') },
      { kind: 'diff', title: 'Diff', text: lines(80, 'diff') },
      { kind: 'note', title: 'Note', text: 'short' },
    ];
    const pack = buildContextPack({ task: { goal: 'g' }, artifacts }, { counter, budget: 800, allocations: { artifacts: 300, evidence: 0, history: 0, workspace: 0 } });
    const [plan, diff, ...rest] = pack.sections.artifacts;
    expect(plan!.keptLines).toBe(3);
    expect(diff!.keptLines).toBeGreaterThan(0);
    expect(diff!.keptLines).toBeLessThan(80);
    expect(diff!.text).toBe(lines(diff!.keptLines, 'diff'));
    expect(rest).toEqual([]);
    expect(pack.omitted).toEqual([
      { section: 'artifacts', label: 'diff: Diff', reason: 'trimmed' },
      { section: 'artifacts', label: 'note: Note', reason: 'budget' },
    ]);
    expect(parse(pack.text).artifacts[1].trimmed).toBe(`kept lines 1-${diff!.keptLines} of 80`);
  });

  it('throws TOO_LARGE when the never-drop part alone is over budget, whatever else there is', () => {
    const input = { task: { goal: lines(40, 'goal'), constitution: ['rule'] }, history: historyEntries(3, 2) };
    let size = 0;
    try {
      buildContextPack(input, { counter, budget: 100 });
    } catch (err) {
      expect(isEngineError(err, 'TOO_LARGE')).toBe(true);
      size = (err as { data: { size: number } }).data.size;
    }
    expect(size).toBeGreaterThan(100);
    const exact = buildContextPack(input, { counter, budget: size });
    expect(exact.tokens.total).toBe(size);
    expect(exact.sections.history).toEqual([]);
  });

  it('rejects a bad budget, allocation, cap or span with INVALID_ARGUMENT', () => {
    const bad: [ContextPackInput, Partial<ContextPackOptions>][] = [
      [SMALL, { budget: 0 }],
      [SMALL, { budget: 1.5 }],
      [SMALL, { allocations: { evidence: -1 } }],
      [SMALL, { maxPiecesPerFile: 0 }],
      [SMALL, { windowLines: 0 }],
      [{ task: { goal: 'g' }, evidence: [{ path: 'a', startLine: 5, endLine: 4, text: '' }] }, {}],
      [{ task: { goal: 'g' }, workspace: { currentFile: { path: 'a', text: 'x', cursorLine: 0 } } }, {}],
      [{ task: { goal: 'g' }, workspace: { currentFile: { path: 'a', text: 'x', firstLine: 0 } } }, {}],
      [{ task: { goal: 'g' }, workspace: { currentFile: { path: 'a', text: 'x', totalLines: 1.5 } } }, {}],
    ];
    for (const [input, options] of bad) {
      expect(() => buildContextPack(input, { counter, ...options }), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
  });
});
