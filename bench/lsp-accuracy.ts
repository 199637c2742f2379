/**
 * Definitions and references by name vs by language server (issue 21), on real repositories.
 *
 *   npx tsx bench/lsp-accuracy.ts --repo /path/a,/path/b [--top 30] [--seed 1]
 *
 * For each repository (indexed into a temp cache): the method and function names defined at least
 * twice in a language a server answers for (TS/JS: typescript-language-server, Python: pyright),
 * then up to `top` of their definitions, drawn with a seeded PRNG. Ground truth is the server's own
 * answer (references of that definition, `resolution: "lsp"`); the script prints samples to check by hand.
 * - references: precision and recall of the by-name code references (calls, imports, uses; not
 *   comment/text mentions) against the server's, per definition, averaged (macro) and pooled (micro);
 * - definitions: for each use the server returned (up to 3 per definition), whether the by-name
 *   lookup (its first definition) and the by-type lookup (`at` the use) name that definition;
 * - latency: the first typed request (cold: server start and project load), then p50/p95 of the
 *   others (warm), with the by-name lookups of the same run as the reference;
 * - memory: RSS of each server's process group after the run (ps).
 * Writes bench/results/lsp-accuracy.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConnection } from '../src/store/driver.js';
import { createEngine, formatSymbolId, type ReferencesResult, type SymbolRow } from '../src/index.js';
import { environment, parseArgs, writeResult } from './results.js';
import { prng, summarize, timeAsync, type Summary } from './stats.js';

const LANGUAGES = ['typescript', 'tsx', 'javascript', 'python'];

interface RepoReport {
  readonly repo: string;
  readonly definitions: number;
  readonly references: { readonly macro: { precision: number; recall: number }; readonly micro: { precision: number; recall: number }; readonly lspTotal: number; readonly nameTotal: number };
  readonly definitionsAtUses: { readonly uses: number; readonly nameCorrect: number; readonly lspCorrect: number; readonly lspAnswered: number; readonly meanCandidatesByName: number };
  readonly latencyMs: { readonly cold: number; readonly warm: Summary; readonly byName: Summary };
  readonly serverRssMB: Record<string, number>;
  readonly fallbacks: number;
  readonly samples: readonly string[];
}

const key = (path: string, line: number, column: number): string => `${path}:${line}:${column}`;

function codeRefs(r: ReferencesResult): Set<string> {
  return new Set(r.files.flatMap((f) => f.references.filter((x) => x.kind !== 'text').map((x) => key(f.path, x.line, x.column))));
}

/** Definitions whose name is defined at least twice, in languages with a server. */
function ambiguousDefinitions(dbPath: string): SymbolRow[] {
  const db = openConnection(dbPath, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT s.id AS id, f.path AS path, f.language AS language, s.name AS name, s.kind AS kind, s.container AS container, s.signature AS signature,
                s.start_line AS startLine, s.start_col AS startCol, s.end_line AS endLine, s.end_col AS endCol, s.exported AS exported
         FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE f.language IN (${LANGUAGES.map(() => '?').join(',')}) AND s.kind IN ('method', 'function') AND length(s.name) > 2
           AND s.name IN (SELECT s2.name FROM symbols s2 JOIN files f2 ON f2.id = s2.file_id WHERE f2.path NOT LIKE '%test%' GROUP BY s2.name HAVING count(*) >= 2)
           AND f.path NOT LIKE '%test%' AND f.path NOT LIKE '%.d.ts'`,
      )
      .all(...LANGUAGES) as Array<Omit<SymbolRow, 'exported'> & { exported: number }>;
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

/** RSS (MB) of each language-server process group this process started. */
function serverRss(): Record<string, number> {
  const out: Record<string, number> = {};
  const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  for (const line of children) {
    const [pid, comm] = line.trim().split(/\s+/);
    if (!pid || comm === 'ps') continue;
    try {
      const group = execFileSync('ps', ['-o', 'rss=', '-g', pid], { encoding: 'utf8' }).trim().split('\n').map(Number).filter((x) => x > 0);
      out[`${comm}(${pid})`] = Math.round(group.reduce((a, b) => a + b, 0) / 1024);
    } catch {
      // not a group leader (a helper of the runtime, not a server)
    }
  }
  return out;
}

async function measureRepo(repo: string, top: number, seed: number): Promise<RepoReport> {
  const cache = mkdtempSync(join(tmpdir(), 'scry-lsp-bench-'));
  const env = { SCRY_CACHE_DIR: cache };
  const byName = await createEngine({ root: repo, env });
  const typed = await createEngine({ root: repo, env, config: { lsp: { enabled: true, timeoutMs: 120_000 } } });
  try {
    await byName.index();
    const defs = pick(ambiguousDefinitions(byName.dbPath), top, seed);
    const warm: number[] = [];
    const nameMs: number[] = [];
    let cold = -1;
    let fallbacks = 0;
    const macro = { p: 0, r: 0, n: 0 };
    const micro = { hit: 0, name: 0, lsp: 0 };
    const at = { uses: 0, nameCorrect: 0, lspCorrect: 0, lspAnswered: 0, candidates: 0 };
    const samples: string[] = [];
    for (const def of defs) {
      const id = formatSymbolId(def);
      const t = await timeAsync(() => typed.references(id, { limit: 5000 }));
      process.stderr.write(`${id}: ${t.value.resolution} ${Math.round(t.ms)} ms\n`);
      if (cold < 0) cold = t.ms;
      else warm.push(t.ms);
      if (t.value.resolution !== 'lsp') {
        fallbacks++;
        continue;
      }
      const n = await timeAsync(() => byName.references(def.name, { limit: 5000 }));
      nameMs.push(n.ms);
      const truth = codeRefs(t.value);
      const named = codeRefs(n.value);
      const hit = [...named].filter((k) => truth.has(k)).length;
      macro.p += named.size ? hit / named.size : 1;
      macro.r += truth.size ? hit / truth.size : 1;
      macro.n++;
      Object.assign(micro, { hit: micro.hit + hit, name: micro.name + named.size, lsp: micro.lsp + truth.size });
      if (samples.length < 12) samples.push(`${id}: lsp ${truth.size} refs, by name ${named.size} (${hit} shared); e.g. lsp-only ${[...truth].find((k) => !named.has(k)) ?? '-'}, name-only ${[...named].find((k) => !truth.has(k)) ?? '-'}`);
      // definitions at the server's uses of this definition
      const uses = t.value.files.flatMap((f) => f.references.filter((r) => r.kind !== 'definition' && r.kind !== 'import').map((r) => ({ path: f.path, line: r.line, column: r.column }))).slice(0, 3);
      for (const use of uses) {
        at.uses++;
        const plain = await byName.symbol(def.name);
        at.candidates += 1 + plain.alternatives.length;
        if (plain.symbol.id === def.id) at.nameCorrect++;
        const d = await timeAsync(() => typed.symbol(def.name, { at: use }));
        warm.push(d.ms);
        if (d.value.resolution === 'lsp') {
          at.lspAnswered++;
          if (d.value.symbol.id === def.id) at.lspCorrect++;
        }
      }
    }
    const round = (x: number): number => Math.round(x * 1000) / 1000;
    return {
      repo,
      definitions: defs.length,
      references: {
        macro: { precision: round(macro.p / Math.max(1, macro.n)), recall: round(macro.r / Math.max(1, macro.n)) },
        micro: { precision: round(micro.hit / Math.max(1, micro.name)), recall: round(micro.hit / Math.max(1, micro.lsp)) },
        lspTotal: micro.lsp,
        nameTotal: micro.name,
      },
      definitionsAtUses: { uses: at.uses, nameCorrect: at.nameCorrect, lspCorrect: at.lspCorrect, lspAnswered: at.lspAnswered, meanCandidatesByName: round(at.candidates / Math.max(1, at.uses)) },
      latencyMs: { cold: Math.round(cold), warm: summarize(warm), byName: summarize(nameMs) },
      serverRssMB: serverRss(),
      fallbacks,
      samples,
    };
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
  const top = Number(values.get('top') ?? 30);
  const seed = Number(values.get('seed') ?? 1);
  const reports: RepoReport[] = [];
  for (const repo of repos) {
    const r = await measureRepo(repo, top, seed);
    reports.push(r);
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  }
  const file = writeResult('lsp-accuracy', { environment: environment(), top, seed, reports });
  process.stdout.write(`wrote ${file}\n`);
}

await main();
