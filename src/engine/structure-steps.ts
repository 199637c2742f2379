/**
 * The steps of task-aware retrieval that follow the repository's structure from the current file
 * (seed 002 /test, /refactor, /explain): what the code at the cursor calls and names, the current
 * file's imports, importers (callers) and callees, its tests, test helpers and similar tests.
 */
import type { EvidenceInput } from '../context/evidence-merge.js';
import { isTestPath } from '../search/rank.js';
import type { SymbolRow } from '../store/structure-repo.js';
import { calledNames, typeNames } from './evidence-text.js';
import type { StepRunner } from './failure-steps.js';
import { collect, type TaskKit } from './task-kit.js';

const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'enum', 'type']);
/** Definitions of the current file whose uses are looked up, at most (exported first). */
const MAX_OWN_NAMES = 8;

const currentPath = (kit: TaskKit): string | undefined => kit.request.current?.path;

/** Whether a definition is the one the cursor stands in (its code is the current-file window). */
function atCursor(kit: TaskKit, s: SymbolRow): boolean {
  const c = kit.request.current;
  return c !== undefined && s.path === c.path && s.startLine <= c.line && c.line <= s.endLine;
}

export const selectionCalls: StepRunner = async (kit, step) => {
  const names = calledNames(await kit.focusText());
  return collect(names, step.limit, async (name) => {
    const defs = (await kit.definitionsOf(name)).filter((d) => !atCursor(kit, d));
    const best = defs.find((d) => d.path === currentPath(kit)) ?? defs.find((d) => !isTestPath(d.path)) ?? defs[0];
    return best === undefined ? undefined : kit.definition(best, step, `${name}()`);
  });
};

export const referencedTypes: StepRunner = async (kit, step) => {
  const names = typeNames(await kit.focusText());
  return collect(names, step.limit, async (name) => {
    const defs = (await kit.definitionsOf(name)).filter((d) => TYPE_KINDS.has(d.kind) && !atCursor(kit, d));
    return defs[0] === undefined ? undefined : kit.definition(defs[0], step, name);
  });
};

/** The imported names' definitions in each imported repository file (its top exports when none are named). */
export const importsStep: StepRunner = async (kit, step) => {
  const path = currentPath(kit);
  const o = path === undefined ? undefined : await kit.outline(path);
  const imports = (o?.imports ?? []).filter((i) => i.resolved !== null);
  return collect(imports, step.limit, async (imp) => {
    const target = await kit.outline(imp.resolved!);
    const syms = (target?.symbols ?? []).filter((s) => s.container === null);
    const named = imp.names.length > 0 ? syms.filter((s) => imp.names.includes(s.name)) : [];
    const chosen = named.length > 0 ? named : syms.filter((s) => s.exported).slice(0, 3);
    const out = await Promise.all(chosen.map((s) => kit.definition(s, step, `${imp.source}${named.length > 0 ? ` (${s.name})` : ''}`)));
    return out.filter((e): e is EvidenceInput => e !== undefined);
  });
};

/**
 * The current file's own definitions whose uses are worth finding: the one at the cursor (and the
 * class holding it) first — that is what is being tested or refactored — then exported, top-level.
 */
async function ownNames(kit: TaskKit, path: string): Promise<string[]> {
  const o = await kit.outline(path);
  const line = kit.request.current?.path === path ? kit.request.current.line : undefined;
  const here = line === undefined ? undefined : await kit.definitionAt(path, line);
  const first = here === undefined ? [] : [here.name, ...(here.container !== null ? [here.container.split('.')[0]!] : [])];
  const top = (o?.symbols ?? []).filter((s) => s.container === null && s.name.length >= 3);
  return [...new Set([...first, ...top.filter((s) => s.exported).map((s) => s.name), ...top.filter((s) => !s.exported).map((s) => s.name)])].slice(0, MAX_OWN_NAMES);
}

/** Where other files (tests or not) use the current file's names: the definitions holding the uses. */
async function usesElsewhere(kit: TaskKit, step: Parameters<StepRunner>[1], keep: (path: string) => boolean): Promise<EvidenceInput[]> {
  const path = currentPath(kit);
  if (path === undefined) return [];
  const uses: { path: string; line: number; name: string }[] = [];
  // a name is a use of this file's definition only in a file of its language
  const language = (await kit.outline(path))?.language;
  for (const name of await ownNames(kit, path)) {
    const refs = await kit.deps.references(name, { limit: 60 }).catch(() => undefined);
    for (const g of refs?.files ?? []) {
      if (g.path === path || !keep(g.path) || (language !== undefined && g.language !== language)) continue;
      const r = g.references.find((x) => x.kind === 'call' || x.kind === 'reference');
      if (r !== undefined) uses.push({ path: g.path, line: r.line, name });
    }
  }
  // one use per file first, so that one busy caller does not take every slot
  const firstPerFile = uses.filter((u, i) => uses.findIndex((v) => v.path === u.path) === i);
  const rest = uses.filter((u) => !firstPerFile.includes(u));
  return collect([...firstPerFile, ...rest], step.limit, (u) => kit.around(u.path, u.line, step, `${u.name} (${u.path}:${u.line})`));
}

export const importersStep: StepRunner = (kit, step) => usesElsewhere(kit, step, (p) => !isTestPath(p));

export const calleesStep: StepRunner = async (kit, step) => {
  const path = currentPath(kit);
  if (path === undefined) return [];
  const related = await kit.deps.related(path, { limit: 20 }).catch(() => undefined);
  const pairs = (related?.files ?? []).flatMap((f) => (f.relations.callees ?? []).map((name) => ({ path: f.path, name })));
  return collect(pairs, step.limit, async ({ path: p, name }) => {
    const defs = await kit.definitionsOf(name, p);
    return defs[0] === undefined ? undefined : kit.definition(defs[0], step, `${name} (${p})`);
  });
};

/** The tests of the current file: the test functions using its names, else the test files' first definitions. */
export const testsStep: StepRunner = async (kit, step) => {
  const path = currentPath(kit);
  if (path === undefined) return [];
  const own = await kit.outline(path);
  // the index pairs tests by file name (`calc_test.go` with `calc.py`): only those in the file's language
  const tests: string[] = [];
  for (const t of own?.tests ?? []) if ((await kit.outline(t))?.language === own?.language) tests.push(t);
  const found = await usesElsewhere(kit, step, (p) => tests.includes(p) || isTestPath(p));
  if (found.length >= step.limit) return found;
  const more = await collect(tests, step.limit - found.length, async (t) => {
    const first = ((await kit.outline(t))?.symbols ?? []).find((s) => s.container === null);
    return first === undefined ? kit.lines(t, 1, 40, step, t) : kit.definition(first, step, t);
  });
  return [...found, ...more];
};

const HELPER_GLOBS = ['**/conftest.py', '**/test/helpers/**', '**/tests/helpers/**', '**/test/utils/**', '**/tests/utils/**', '**/testutils/**', '**/testing/**', '**/*test_util*', '**/*test-util*', '**/*testutil*', '**/test_helper*', '**/spec_helper*', '**/setupTests.*', '**/test/setup.*', '**/fixtures.*', '**/test/fixtures/*.*', '**/tests/fixtures/*.*'];

/** Folders shared by two paths, from the root. */
const sharedDepth = (a: string, b: string): number => {
  const x = a.split('/');
  const y = b.split('/');
  let n = 0;
  while (n < x.length - 1 && n < y.length - 1 && x[n] === y[n]) n++;
  return n;
};

export const testHelpers: StepRunner = async (kit, step) => {
  const path = currentPath(kit);
  const anchor = ((path === undefined ? [] : (await kit.outline(path))?.tests) ?? [])[0] ?? path ?? '';
  const listing = await kit.deps.listFiles({ glob: HELPER_GLOBS, limit: 200 }).catch(() => undefined);
  const helpers = (listing?.files ?? []).map((f) => f.path).filter((p) => p !== path).sort((a, b) => sharedDepth(b, anchor) - sharedDepth(a, anchor) || a.localeCompare(b));
  return collect(helpers.slice(0, 6), step.limit, async (h) => {
    const syms = ((await kit.outline(h))?.symbols ?? []).filter((s) => s.container === null).slice(0, 3);
    const out = await Promise.all(syms.map((s) => kit.definition(s, step, h)));
    return out.filter((e): e is EvidenceInput => e !== undefined);
  });
};

export const similarTests: StepRunner = async (kit, step) => {
  const path = currentPath(kit);
  const names = path === undefined ? [] : await ownNames(kit, path);
  const query = [kit.request.query, ...names.slice(0, 4)].join(' ').trim();
  if (query === '') return [];
  const own = path === undefined ? [] : ((await kit.outline(path))?.tests ?? []);
  const res = await kit.deps.search(query, { limit: 30, language: kit.request.language, signal: kit.request.signal }).catch(() => undefined);
  const language = path === undefined ? undefined : (await kit.outline(path))?.language;
  const hits = (res?.results ?? []).filter((r) => isTestPath(r.path) && !own.includes(r.path) && r.path !== path && (language === undefined || r.language === language));
  return collect(hits, step.limit, (r) => kit.lines(r.path, r.startLine, r.endLine, step, r.symbol ?? r.path, r.symbol ?? undefined));
};

export const openFilesStep: StepRunner = async (kit, step) => {
  const words = new Set(kit.request.query.match(/[A-Za-z_$][\w$]{2,}/g) ?? []);
  return collect(kit.request.openFiles, step.limit, async (p) => {
    const syms = ((await kit.outline(p))?.symbols ?? []).filter((s) => words.has(s.name));
    const out = await Promise.all(syms.slice(0, 2).map((s) => kit.definition(s, step, p)));
    return out.filter((e): e is EvidenceInput => e !== undefined);
  });
};
