/**
 * Symbol search with workspace/symbol and implementations with textDocument/implementation
 * (issue 21, second part), on real repositories.
 *
 *   npx tsx bench/lsp-symbols.ts --repo /path/a,/path/b [--top 20] [--seed 1]
 *
 * Draws `top` method/function names defined at least twice (as bench/lsp-accuracy.ts does), then:
 * - symbols: `findSymbols` with the servers (`resolution: "lsp"`) against `symbols` by name, for the
 *   whole name and for a partial one (the name without its first 3 characters: what an agent
 *   half-remembers). Recall@20 of the drawn definition, definitions the server added, latency;
 * - implementations: for `top` classes/interfaces and methods drawn the same way, how many the
 *   server answers for, how many have implementations (ids), and latency (cold = first request).
 * Writes bench/results/lsp-symbols.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConnection } from '../src/store/driver.js';
import { createEngine, formatSymbolId, type Engine, type SymbolRow } from '../src/index.js';
import { environment, parseArgs, writeResult } from './results.js';
import { prng, summarize, timeAsync, type Summary } from './stats.js';

const LANGUAGES = ['typescript', 'tsx', 'javascript', 'python'];

function definitions(dbPath: string, kinds: readonly string[], ambiguous: boolean): SymbolRow[] {
  const db = openConnection(dbPath, { readonly: true });
  try {
    const twice = ambiguous ? `AND s.name IN (SELECT s2.name FROM symbols s2 GROUP BY s2.name HAVING count(*) >= 2)` : '';
    const rows = db
      .prepare(
        `SELECT s.id AS id, f.path AS path, f.language AS language, s.name AS name, s.kind AS kind, s.container AS container, s.signature AS signature,
                s.start_line AS startLine, s.start_col AS startCol, s.end_line AS endLine, s.end_col AS endCol, s.exported AS exported
         FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE f.language IN (${LANGUAGES.map(() => '?').join(',')}) AND s.kind IN (${kinds.map(() => '?').join(',')}) AND length(s.name) > 5
           AND f.path NOT LIKE '%test%' AND f.path NOT LIKE '%.d.ts' ${twice}`,
      )
      .all(...LANGUAGES, ...kinds) as Array<Omit<SymbolRow, 'exported'> & { exported: number }>;
    return rows.map((r) => ({ ...r, exported: Boolean(r.exported) }));
  } finally {
    db.close();
  }
}

function pick<T>(items: readonly T[], n: number, seed: number): T[] {
  const rand = prng(seed);
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, n);
}

interface SymbolsReport {
  readonly queries: number;
  readonly answered: number;
  readonly recallAt20: { readonly full: { name: number; lsp: number }; readonly partial: { name: number; lsp: number } };
  readonly addedByServer: number;
  readonly latencyMs: { readonly cold: number; readonly warm: Summary; readonly byName: Summary };
}

async function symbolsReport(byName: Engine, typed: Engine, defs: readonly SymbolRow[]): Promise<SymbolsReport> {
  const hits = { full: { name: 0, lsp: 0 }, partial: { name: 0, lsp: 0 } };
  const warm: number[] = [];
  const nameMs: number[] = [];
  let cold = -1;
  let answered = 0;
  let added = 0;
  for (const def of defs) {
    for (const [form, query] of [['full', def.name], ['partial', def.name.slice(3)]] as const) {
      const n = await timeAsync(() => byName.symbols(query, { limit: 20 }));
      nameMs.push(n.ms);
      const t = await timeAsync(() => typed.findSymbols(query, { limit: 20 }));
      if (cold < 0) cold = t.ms;
      else warm.push(t.ms);
      if (t.value.resolution === 'lsp') answered++;
      const named = new Set(n.value.map((h) => h.id));
      added += t.value.symbols.filter((h) => !named.has(h.id)).length;
      if (named.has(def.id)) hits[form].name++;
      if (t.value.symbols.some((h) => h.id === def.id)) hits[form].lsp++;
    }
  }
  return { queries: defs.length * 2, answered, recallAt20: hits, addedByServer: added, latencyMs: { cold: Math.round(cold), warm: summarize(warm), byName: summarize(nameMs) } };
}

async function implementationsReport(typed: Engine, defs: readonly SymbolRow[]): Promise<{ asked: number; answered: number; withImplementations: number; ids: number; samples: string[]; latencyMs: { cold: number; warm: Summary } }> {
  const warm: number[] = [];
  let cold = -1;
  const r = { asked: defs.length, answered: 0, withImplementations: 0, ids: 0, samples: [] as string[] };
  for (const def of defs) {
    const t = await timeAsync(() => typed.symbol(formatSymbolId(def), { implementations: true, maxLines: 1 }));
    if (cold < 0) cold = t.ms;
    else warm.push(t.ms);
    const ids = t.value.implementations ?? [];
    if (t.value.implementationsFallback === undefined) r.answered++;
    if (ids.length > 0) r.withImplementations++;
    r.ids += ids.length;
    if (ids.length > 0 && r.samples.length < 6) r.samples.push(`${formatSymbolId(def)} → ${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ` (+${ids.length - 3})` : ''}`);
    else if (t.value.implementationsFallback && r.samples.length < 6) r.samples.push(`${formatSymbolId(def)}: ${t.value.implementationsFallback}`);
  }
  return { ...r, latencyMs: { cold: Math.round(cold), warm: summarize(warm) } };
}

async function measureRepo(repo: string, top: number, seed: number): Promise<Record<string, unknown>> {
  const cache = mkdtempSync(join(tmpdir(), 'scry-lsp-symbols-'));
  const env = { SCRY_CACHE_DIR: cache };
  const byName = await createEngine({ root: repo, env });
  const typed = await createEngine({ root: repo, env, config: { lsp: { enabled: true, timeoutMs: 120_000 } } });
  try {
    await byName.index();
    const names = pick(definitions(byName.dbPath, ['method', 'function'], true), top, seed);
    const symbols = await symbolsReport(byName, typed, names);
    const types = pick(definitions(byName.dbPath, ['interface', 'class'], false), top, seed);
    const methods = pick(definitions(byName.dbPath, ['method'], true), top, seed + 1);
    const implementations = { types: await implementationsReport(typed, types), methods: await implementationsReport(typed, methods) };
    return { repo, symbols, implementations };
  } finally {
    typed.close();
    byName.close();
    rmSync(cache, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const repos = (values.get('repo') ?? '').split(',').filter(Boolean);
  if (repos.length === 0) throw new Error('pass --repo PATH[,PATH...] (checked-out repositories)');
  const top = Number(values.get('top') ?? 20);
  const seed = Number(values.get('seed') ?? 1);
  const reports: unknown[] = [];
  for (const repo of repos) {
    const r = await measureRepo(repo, top, seed);
    reports.push(r);
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  }
  const file = writeResult('lsp-symbols', { environment: environment(), top, seed, reports });
  process.stdout.write(`wrote ${file}\n`);
}

await main();
