/**
 * Offline simulation of companion rules over the tuning half's long issue texts (issue 18,
 * companions): the default chunk list's files (best chunk score each) re-ordered by each rule, file
 * Acc@5/Acc@10 for one-file and multi-file texts. Ties are resolved as `outline` does (all files).
 * Tuning half only.
 *
 *   npx tsx bench/long-companions-sim.ts [--sets large|devset] [--only owner/name,...] [--cache texts.json]
 *
 * `--cache`: the texts' files, scores and ties are read from that file when it exists, else
 * gathered and written to it (to try more rules without searching again).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import type { Engine } from '../src/index.js';
import { packageInits } from '../src/search/companions.js';
import { forEachTuneIssue, issueSetOf } from './tune-issues.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

type Tie = 'importedBy' | 'imports' | 'init' | 'sameDir';
interface Text { gold: string[]; files: Array<{ path: string; score: number; ties: Array<{ anchor: number; tie: Tie }> }> }

async function textOf(engine: Engine, query: string, gold: string[]): Promise<Text> {
  const hits = (await engine.search(query, { limit: 100, rerank: false })).results;
  const best = new Map<string, number>();
  for (const h of hits) if (!best.has(h.path)) best.set(h.path, h.score);
  const order = [...best.keys()];
  const anchors = order.slice(0, 5);
  const outlines = new Map<string, { imports: Set<string>; importedBy: Set<string> }>();
  for (const p of order.slice(0, 20)) {
    const o = await engine.outline(p).catch(() => undefined);
    outlines.set(p, { imports: new Set((o?.imports ?? []).flatMap((i) => (i.resolved ? [i.resolved] : []))), importedBy: new Set((o?.importedBy ?? []).map((i) => i.path)) });
  }
  const files = order.slice(0, 20).map((path, rank) => {
    const ties: Array<{ anchor: number; tie: Tie }> = [];
    anchors.forEach((a, i) => {
      if (i >= rank) return;
      if (outlines.get(a)?.imports.has(path)) ties.push({ anchor: i, tie: 'importedBy' });
      else if (outlines.get(path)?.imports.has(a)) ties.push({ anchor: i, tie: 'imports' });
      else if (packageInits(a).includes(path)) ties.push({ anchor: i, tie: 'init' });
      else if (posix.dirname(a) === posix.dirname(path)) ties.push({ anchor: i, tie: 'sameDir' });
    });
    return { path, score: best.get(path)!, ties };
  });
  return { gold, files };
}

interface Rule { name: string; factor: (ties: Text['files'][number]['ties']) => number }

function rules(): Rule[] {
  const out: Rule[] = [{ name: 'default', factor: () => 1 }];
  const w: Record<string, Partial<Record<Tie, number>>> = {
    imp: { importedBy: 1, imports: 1, init: 1 },
    impBy: { importedBy: 1, init: 1 },
    impDir: { importedBy: 1, imports: 1, init: 1, sameDir: 0.5 },
  };
  for (const anchors of [1, 2, 3]) for (const [wn, weights] of Object.entries(w)) for (const boost of [0.1, 0.2, 0.4, 0.6, 0.8, 1]) for (const mode of ['any', 'sum', 'two'] as const) {
    out.push({
      name: `a${anchors} ${wn} ${mode} b${boost}`,
      factor: (ties) => {
        const own = ties.filter((t) => t.anchor < anchors).map((t) => weights[t.tie] ?? 0).filter((x) => x > 0);
        if (own.length === 0) return 1;
        if (mode === 'any') return 1 + boost * Math.max(...own);
        if (mode === 'two') return own.length >= 2 ? 1 + boost : 1;
        return 1 + boost * own.reduce((a, b) => a + b, 0);
      },
    });
  }
  return out;
}

async function main(): Promise<void> {
  const cache = arg('--cache');
  const texts: Text[] = cache && existsSync(cache) ? (JSON.parse(readFileSync(cache, 'utf8')) as Text[]) : [];
  if (texts.length === 0) {
    await forEachTuneIssue(issueSetOf(arg('--sets')), arg('--only')?.split(','), undefined, async (engine, q) => {
      texts.push(await textOf(engine, q.query, [...new Set(q.expected.map((e) => e.path))]));
    });
    if (cache) writeFileSync(cache, JSON.stringify(texts));
  }
  const rows: Array<[string, number, number, number, number]> = [];
  for (const rule of rules()) {
    const acc = { one: [0, 0], multi: [0, 0] };
    for (const t of texts) {
      const order = t.files.map((f) => ({ path: f.path, s: f.score * rule.factor(f.ties) })).sort((a, b) => b.s - a.s).map((f) => f.path);
      const at = (k: number): boolean => t.gold.every((g) => { const i = order.indexOf(g); return i >= 0 && i < k; });
      const a = t.gold.length > 1 ? acc.multi : acc.one;
      a[0]! += at(5) ? 1 : 0;
      a[1]! += at(10) ? 1 : 0;
    }
    rows.push([rule.name, acc.one[0]!, acc.one[1]!, acc.multi[0]!, acc.multi[1]!]);
  }
  const n = { one: texts.filter((t) => t.gold.length === 1).length, multi: texts.filter((t) => t.gold.length > 1).length };
  process.stdout.write(`texts: one-file ${n.one}, multi-file ${n.multi}\nrule  one@5 one@10 multi@5 multi@10\n`);
  for (const r of rows) process.stdout.write(`${r.join('  ')}\n`);
}

await main();
