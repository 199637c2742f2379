/**
 * Failure analysis of doc-comment queries (issue 18, docs/DESIGN.md "Ranking II"): for each query of
 * a doc-comment set whose gold function is not in the first 10 results, why not. Searches the
 * already indexed blanked trees (run bench/run-devset.ts first) and sorts each miss into
 *
 * - `file-missed`: no chunk of the gold file in the first 10 (a vocabulary gap or a better-scoring
 *   neighbour), with how many of the query's words the function's split name shares;
 * - `chunk-below`: the gold file is in the first 10 but the chunk holding the function ranks lower
 *   (or is not among the first 50), with the shape of that chunk: `merged` (it holds more than the
 *   function: a group of small definitions), `piece` (the function is split in several chunks),
 *   `own` (the chunk is the function).
 *
 *   npx tsx bench/doc-misses.ts [--sets large|nl] [--split tune] [--only owner/name,...] [--config JSON] [--verbose]
 *
 * Prints the tally and, with `--verbose`, one line per miss. Never run it on the held-out half to
 * tune: it exists to read the tuning half's failures.
 */
import { join } from 'node:path';
import { createEngine, type ConfigInput } from '../src/index.js';
import { openConnection } from '../src/store/driver.js';
import type { EvalQuery } from '../src/eval/queries-file.js';
import { splitOfRepo } from './bench-repos.js';
import { isTestPath } from '../src/search/rank.js';
import { LARGE_DOC_SET, NL_SET, nlCacheOf, nlTreeOf, readManifest, readNlQueries, type NlSet } from './nl-slice.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface ChunkRow {
  readonly start_line: number;
  readonly end_line: number;
  readonly kind: string;
  readonly symbol: string | null;
}

/** The lower-cased words of an identifier (`getPrimaryKey` → get, primary, key). */
export function identifierWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

const prefix = (w: string): string => (w.length > 5 ? w.slice(0, Math.max(5, w.length - 3)) : w);

/** Share of the name's words that some query word starts like (a crude stem). */
function nameOverlap(query: string, name: string): number {
  const q = new Set(query.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1).map(prefix));
  const n = identifierWords(name);
  return n.length === 0 ? 0 : n.filter((w) => q.has(prefix(w))).length / n.length;
}

interface Miss {
  readonly id: string;
  readonly cls: 'file-missed' | 'chunk-below';
  readonly shape: string;
  readonly fileRank: number | undefined;
  readonly chunkRank: number | undefined;
  readonly overlap: number;
  readonly line: string;
  /** The first 10 results (all above the gold chunk), by what they are: the gold file's other chunks, test files, type declarations (`.d.ts`), other files. */
  readonly above: { sameFile: number; test: number; dts: number; other: number };
  /** The kind of the chunk holding the function (function, method, class, statements...). */
  readonly chunkKind: string;
}

async function analyse(set: NlSet, repo: string, config: ConfigInput | undefined, misses: Miss[], counts: { n: number; hit: number }): Promise<void> {
  const root = nlTreeOf(repo, set);
  const db = join(nlCacheOf(repo, set), 'lexical.db');
  const engine = await createEngine({ root, db, env: {}, reroot: true, config });
  const conn = openConnection(db, { readonly: true });
  const chunksOf = conn.prepare<[string], ChunkRow>('SELECT c.start_line, c.end_line, c.kind, c.symbol FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.start_line');
  try {
    for (const q of readNlQueries(repo, set)) {
      counts.n++;
      const miss = await classify(engine, q, (p) => chunksOf.all(p));
      if (miss) misses.push(miss);
      else counts.hit++;
    }
  } finally {
    conn.close();
    engine.close();
  }
}

async function classify(engine: Awaited<ReturnType<typeof createEngine>>, q: EvalQuery, chunksOf: (path: string) => ChunkRow[]): Promise<Miss | undefined> {
  const gold = q.expected[0]!;
  const gs = gold.startLine!;
  const ge = gold.endLine ?? gs;
  const res = (await engine.search(q.query, { limit: 50, rerank: false, explain: true })).results;
  const over = (h: { path: string; startLine: number; endLine: number }): boolean => h.path === gold.path && h.startLine <= ge && gs <= h.endLine;
  const fnIdx = res.findIndex(over);
  if (fnIdx >= 0 && fnIdx < 10) return undefined;
  const fileIdx = res.findIndex((h) => h.path === gold.path);
  const chunks = chunksOf(gold.path).filter((c) => c.start_line <= ge && gs <= c.end_line);
  const goldLines = ge - gs + 1;
  const main = chunks[0];
  const mainLines = main ? main.end_line - main.start_line + 1 : 0;
  const shape = chunks.length > 1 ? 'piece' : main && mainLines > goldLines * 1.5 + 6 ? 'merged' : 'own';
  const name = q.id?.split(':')[1] ?? '';
  const overlap = nameOverlap(q.query, name);
  const top = res[0];
  const why = fnIdx >= 0 ? (res[fnIdx]!.why ?? []).join('; ') : '';
  const line = `${q.id} | file#${fileIdx >= 0 ? fileIdx + 1 : '-'} fn#${fnIdx >= 0 ? fnIdx + 1 : '-'} ${shape} (${chunks.length} chunk(s), ${mainLines} lines for ${goldLines}, ${main?.kind ?? '?'} ${main?.symbol ?? ''}) name∩query ${overlap.toFixed(2)} | "${q.query}" | top1 ${top?.path}:${top?.startLine} ${top?.symbol ?? ''} | ${why}`;
  const above = { sameFile: 0, test: 0, dts: 0, other: 0 };
  for (const h of res.slice(0, 10)) {
    if (h.path === gold.path) above.sameFile++;
    else if (isTestPath(h.path)) above.test++;
    else if (h.path.endsWith('.d.ts')) above.dts++;
    else above.other++;
  }
  return { id: q.id ?? q.query, cls: fileIdx >= 0 && fileIdx < 10 ? 'chunk-below' : 'file-missed', shape, fileRank: fileIdx >= 0 ? fileIdx + 1 : undefined, chunkRank: fnIdx >= 0 ? fnIdx + 1 : undefined, overlap, line, above, chunkKind: main?.kind ?? '?' };
}

function tally(misses: readonly Miss[], counts: { n: number; hit: number }): string {
  const out = [`queries ${counts.n}, fn@10 ${counts.hit} (${(counts.hit / Math.max(1, counts.n)).toFixed(3)}), misses ${misses.length}`];
  for (const cls of ['file-missed', 'chunk-below'] as const) {
    const m = misses.filter((x) => x.cls === cls);
    const shapes = ['own', 'merged', 'piece'].map((s) => `${s} ${m.filter((x) => x.shape === s).length}`).join(', ');
    const ranks = cls === 'chunk-below' ? `; gold chunk at 11–20 ${m.filter((x) => x.chunkRank !== undefined && x.chunkRank <= 20).length}, 21–50 ${m.filter((x) => x.chunkRank !== undefined && x.chunkRank > 20).length}, not in 50 ${m.filter((x) => x.chunkRank === undefined).length}` : `; file at 11–50 ${m.filter((x) => x.fileRank !== undefined).length}, not in 50 ${m.filter((x) => x.fileRank === undefined).length}`;
    const none = m.filter((x) => x.overlap === 0).length;
    out.push(`${cls} ${m.length}: ${shapes}${ranks}; the name shares no word with the query ${none}, some ${m.length - none}`);
    const sum = (k: keyof Miss['above']): number => m.reduce((n, x) => n + x.above[k], 0);
    const kinds = new Map<string, number>();
    for (const x of m) kinds.set(x.chunkKind, (kinds.get(x.chunkKind) ?? 0) + 1);
    out.push(`  first 10 results of these misses (${m.length * 10}): the gold file's other chunks ${sum('sameFile')}, test files ${sum('test')}, .d.ts ${sum('dts')}, other files ${sum('other')}; the function's chunk is a ${[...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const set = arg('--sets') === 'nl' ? NL_SET : LARGE_DOC_SET;
  const split = arg('--split') ?? 'tune';
  const only = arg('--only')?.split(',');
  const config = arg('--config') ? (JSON.parse(arg('--config')!) as ConfigInput) : undefined;
  const misses: Miss[] = [];
  const counts = { n: 0, hit: 0 };
  for (const entry of readManifest(set)) {
    if (splitOfRepo(entry.repo) !== split || (only && !only.includes(entry.repo))) continue;
    await analyse(set, entry.repo, config, misses, counts);
  }
  if (process.argv.includes('--verbose')) for (const m of misses) process.stdout.write(`${m.cls} ${m.line}\n`);
  process.stdout.write(`${tally(misses, counts)}\n`);
}

await main();
