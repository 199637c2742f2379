/**
 * What the missing files of multi-file long texts ARE to the files ranked first (issue 18,
 * companions): for each tuning-half issue text whose fix changed several files, each gold file
 * outside the first 5 files of the default chunk list is classified against the first 3 files:
 * same directory, the package `__init__.py` of one, imported by one, importing one, a test of one
 * (or its subject), and whether it defines a name the text writes as code; and where it ranks
 * (in the 100-chunk list, or not at all). Tuning half only (it is for deciding what to build).
 *
 *   npx tsx bench/long-companions.ts [--sets large|devset] [--only owner/name,...] [--top N] [--config JSON]
 */
import { posix } from 'node:path';
import type { ConfigInput, Engine } from '../src/index.js';
import { mentionedNames } from '../src/search/file-score.js';
import { forEachTuneIssue, issueSetOf } from './tune-issues.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Every `__init__.py` of the packages above `path` (its own directory first). */
export function packageInits(path: string): string[] {
  const out: string[] = [];
  for (let dir = posix.dirname(path); dir !== '.' && dir !== '/' && dir !== ''; dir = posix.dirname(dir)) out.push(`${dir}/__init__.py`);
  return out;
}

interface Ties {
  readonly sameDir: boolean;
  readonly init: boolean;
  readonly importedByTop: boolean;
  readonly importsTop: boolean;
  readonly test: boolean;
}

async function tiesTo(engine: Engine, missing: string, tops: readonly string[]): Promise<Ties> {
  const outline = await engine.outline(missing).catch(() => undefined);
  const importedBy = new Set((outline?.importedBy ?? []).map((i) => i.path));
  const imports = new Set((outline?.imports ?? []).flatMap((i) => (i.resolved ? [i.resolved] : [])));
  const tests = new Set([...(outline?.tests ?? []), ...(outline?.testedFiles ?? [])]);
  return {
    sameDir: tops.some((t) => posix.dirname(t) === posix.dirname(missing)),
    init: tops.some((t) => packageInits(t).includes(missing)),
    importedByTop: tops.some((t) => importedBy.has(t)),
    importsTop: tops.some((t) => imports.has(t)),
    test: tops.some((t) => tests.has(t)),
  };
}

/** Files at ranks topN+1..20: how often one tied to the first topN files is gold, against one that is not tied (how much a tie tells). */
async function baseRates(engine: Engine, order: readonly string[], gold: readonly string[], topN: number, bump: (k: string) => void): Promise<void> {
  const tops = order.slice(0, topN);
  const kind = gold.length > 1 ? 'multi' : 'one';
  for (const [i, f] of order.slice(topN, 20).entries()) {
    const ties = await tiesTo(engine, f, tops);
    const structural = ties.init || ties.importedByTop || ties.importsTop || ties.test;
    const band = i + topN < 5 ? 'ranks 4-5' : i + topN < 10 ? 'ranks 6-10' : 'ranks 11-20';
    const g = gold.includes(f) ? 'gold' : 'other';
    bump(`base ${kind} ${band} ${structural ? 'tied' : 'untied'} ${g}`);
    if (kind !== 'multi' || band === 'ranks 4-5') continue;
    for (const [k, v] of Object.entries(ties)) if (v) bump(`tie ${k} ranks 6-20 ${g}`);
    let n = 0;
    for (const t of tops) {
      const one = await tiesTo(engine, f, [t]);
      if (one.init || one.importedByTop || one.importsTop || one.test) n++;
    }
    bump(`tied to ${n} of the first ${topN}, ranks 6-20 ${g}`);
    const first = await tiesTo(engine, f, tops.slice(0, 1));
    if (first.init || first.importedByTop || first.importsTop || first.test) bump(`tied to the first file, ranks 6-20 ${g}`);
  }
}

async function main(): Promise<void> {
  const config = arg('--config') ? (JSON.parse(arg('--config')!) as ConfigInput) : undefined;
  const topN = Number(arg('--top') ?? 3);
  const count = new Map<string, number>();
  const bump = (k: string): void => void count.set(k, (count.get(k) ?? 0) + 1);
  await forEachTuneIssue(issueSetOf(arg('--sets')), arg('--only')?.split(','), config, async (engine, q, repo) => {
    const gold = [...new Set(q.expected.map((e) => e.path))];
    const hits = (await engine.search(q.query, { limit: 100, rerank: false })).results;
    const order = [...new Set(hits.map((h) => h.path))];
    const hit5 = gold.every((g) => { const i = order.indexOf(g); return i >= 0 && i < 5; });
    bump(gold.length > 1 ? 'multi-file texts' : 'one-file texts');
    await baseRates(engine, order, gold, topN, bump);
    if (hit5) return void bump(gold.length > 1 ? 'multi-file hits@5' : 'one-file hits@5');
    if (gold.length === 1) return;
    const tops = order.slice(0, topN);
    const names = new Set(mentionedNames(q.query));
    for (const g of gold) {
      const rank = order.indexOf(g);
      if (rank >= 0 && rank < 5) continue;
      bump('missing gold files');
      bump(rank < 0 ? 'missing: not in the 100-chunk list' : rank < 10 ? 'missing: file rank 6-10' : 'missing: file rank >10');
      const ties = await tiesTo(engine, g, tops);
      const found = gold.filter((o) => o !== g && order.indexOf(o) >= 0 && order.indexOf(o) < 5);
      const goldTies = found.length ? await tiesTo(engine, g, found) : undefined;
      const defs = (await engine.outline(g).catch(() => undefined))?.symbols.map((s) => s.name) ?? [];
      const mentioned = defs.some((d) => names.has(d));
      const labels = Object.entries(ties).filter(([, v]) => v).map(([k]) => k);
      for (const l of labels) bump(`tie to top ${topN}: ${l}`);
      if (labels.length === 0) bump(`tie to top ${topN}: none`);
      if (labels.some((l) => l !== 'sameDir')) bump(`tie to top ${topN}: any structural (init/import/test)`);
      if (goldTies) for (const [k, v] of Object.entries(goldTies)) if (v) bump(`tie to a found gold file: ${k}`);
      if (mentioned) bump('defines a name the text writes as code');
      if (g.endsWith('__init__.py')) bump('is an __init__.py');
      process.stdout.write(`${repo} ${q.id} missing ${g} rank ${rank + 1 || '-'} ties ${labels.join(',') || 'none'}${mentioned ? ' +mentioned' : ''} tops ${tops.join(' ')}\n`);
    }
  });
  for (const [k, v] of [...count].sort()) process.stdout.write(`${k}: ${v}\n`);
}

await main();
