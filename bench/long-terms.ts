/**
 * Failure analysis of long issue-like texts, the query side (issue 18, longterms): for each
 * tuning-half issue text whose gold file is not in the top 5 files, which of the kept query terms
 * carried the best wrong file above the gold file, and which the gold file matches. Each kept
 * group's BM25 share is scored on its own (FTS5's bm25() is a sum over the expression's phrases)
 * on the best chunk of the top wrong file and of the gold file, and tallied by where the term
 * comes from in the text (title, written as code, a traceback frame inside / outside the project,
 * the user's code block, prose) and by its document frequency. Never run on the held-out half.
 *
 *   npx tsx bench/long-terms.ts [--sets large|devset] [--only owner/name,...] [--config JSON] [--verbose]
 */
import type { EvalQuery } from '../src/eval/queries-file.js';
import type { ConfigInput, Engine } from '../src/index.js';
import { buildFtsExpression } from '../src/search/fts-expression.js';
import { fieldWeights } from '../src/search/lexical-search.js';
import { parseQuery, type TermGroup } from '../src/search/query-parse.js';
import { understandQuery } from '../src/search/query-understand.js';
import { LONG_QUERY_SELECT_PARAMS, selectGroups } from '../src/search/term-select.js';
import { DEFAULT_CONFIG } from '../src/config/defaults.js';
import type { IndexStore } from '../src/store/index-store.js';
import { forEachTuneIssue, issueSetOf } from './tune-issues.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

type Source = 'title' | 'frame-own' | 'frame-ext' | 'fence' | 'backtick' | 'code-prose' | 'prose';

/** Where the words of a text come from (the first that applies, in the order of `Source`). */
function sourcesOf(text: string): Map<string, Source> {
  const u = understandQuery(text);
  const out = new Map<string, Source>();
  const put = (words: Iterable<string>, s: Source): void => {
    for (const w of words) if (!out.has(w)) out.set(w, s);
  };
  const wordsOf = (s: string): string[] => [...s.matchAll(/[\p{L}\p{N}_$]+/gu)].map((m) => m[0].toLowerCase());
  put(wordsOf(u.title), 'title');
  const own: string[] = [];
  const ext: string[] = [];
  for (const m of u.text.matchAll(/^\s*File "([^"]+)", line \d+, in ([\w<>.]+)/gm)) {
    const external = /site-packages|dist-packages|[\\/]lib[\\/]python\d|<frozen|[\\/]usr[\\/]lib/.test(m[1]!);
    (external ? ext : own).push(...wordsOf(m[1]!), ...wordsOf(m[2]!));
  }
  put(own, 'frame-own');
  put(ext, 'frame-ext');
  for (const m of u.text.matchAll(/```[^\n]*\n([\s\S]*?)(?:```|$)/g)) put(wordsOf(m[1]!), 'fence');
  for (const m of u.text.matchAll(/`([^`\n]{1,200})`/g)) put(wordsOf(m[1]!), 'backtick');
  put([...u.code], 'code-prose');
  put(wordsOf(u.text), 'prose');
  return out;
}

function sourceOf(g: TermGroup, sources: Map<string, Source>): Source {
  return sources.get(g.alternatives[0]!.join('')) ?? sources.get(g.alternatives[0]![0]!) ?? 'prose';
}

function dfBucket(df: number, total: number): string {
  const r = df / total;
  return r < 0.001 ? 'df<0.1%' : r < 0.01 ? 'df<1%' : r < 0.05 ? 'df<5%' : 'df<20%';
}

const tally = new Map<string, number>();
const add = (key: string, v = 1): void => void tally.set(key, (tally.get(key) ?? 0) + v);
let misses = 0;
let texts = 0;

function storeOf(engine: Engine): IndexStore {
  return (engine as unknown as { reads: { store(): IndexStore } }).reads.store();
}

async function analyse(engine: Engine, q: EvalQuery, repo: string): Promise<void> {
  texts++;
  const gold = [...new Set(q.expected.map((e) => e.path))];
  const files = [...new Set((await engine.search(q.query, { limit: 50, rerank: false })).results.map((h) => h.path))];
  // a miss as Acc@5 counts it: some gold file is not among the first 5 files
  const missing = gold.filter((g) => { const r = files.indexOf(g); return r < 0 || r >= 5; });
  if (missing.length === 0) return;
  const goldRank = files.indexOf(missing[0]!) + 1 || 99;
  misses++;
  const store = storeOf(engine);
  const parsed = parseQuery(q.query);
  const words = [...new Set(parsed.groups.flatMap((g) => g.alternatives.flat()))];
  const df = new Map<string, number>();
  for (const s of store.read(() => store.search.termStats(words))) df.set(words[s.index]!, Math.min(df.get(words[s.index]!) ?? Infinity, s.df));
  const total = Number(store.read(() => store.meta.get('chunk_count')) ?? 0);
  const sel = selectGroups(parsed.groups, (w) => df.get(w) ?? 0, total, LONG_QUERY_SELECT_PARAMS);
  const weights = fieldWeights(DEFAULT_CONFIG.search.weights);
  const expr = buildFtsExpression(sel.kept);
  const bestChunk = (path: string): number | undefined => store.read(() => store.search.search(expr, weights, 1, { pathMatch: (p) => p === path }))[0]?.chunkId;
  const wrongPath = files.find((p) => !gold.includes(p))!;
  const wrong = bestChunk(wrongPath);
  const goldPath = missing.find((g) => bestChunk(g) !== undefined) ?? missing[0]!;
  add(`miss: gold is __init__.py`, Number(/__init__\.py$/.test(goldPath)));
  add(`miss: gold is a test file`, Number(/(^|\/)tests?\//.test(goldPath)));
  const goldId = bestChunk(goldPath);
  add(goldId === undefined ? 'miss: gold file matches no kept term' : 'miss: gold file matches');
  const sources = sourcesOf(q.query);
  const rows: string[] = [];
  let carriedBy: { src: string; d: number } | undefined;
  for (const [i, g] of sel.kept.entries()) {
    const scores = store.read(() => store.search.scoreIds(buildFtsExpression([g]), weights, [wrong, goldId].filter((x): x is number => x !== undefined)));
    const w = -(scores.get(wrong ?? -1) ?? 0);
    const gs = -(scores.get(goldId ?? -1) ?? 0);
    const src = sourceOf(g, sources);
    const bucket = dfBucket(sel.keptDf[i]!, total);
    add(`kept ${src}`);
    add(`kept ${bucket}`);
    if (w > gs) {
      add(`wrong-favouring Σ ${src}`, w - gs);
      add(`wrong-favouring Σ ${bucket}`, w - gs);
      if (!carriedBy || w - gs > carriedBy.d) carriedBy = { src: `${src} ${bucket}`, d: w - gs };
    } else if (gs > w) {
      add(`gold-favouring Σ ${src}`, gs - w);
      add(`gold-favouring Σ ${bucket}`, gs - w);
      if (gs > 0 && sel.keptDf[i]! / total < 0.01) add(`gold's rare (df<1%) terms from ${src}`);
    }
    if (Math.abs(w - gs) > 0.05) rows.push(`${g.raw}[${src},w${g.weight},c${g.count},${bucket}] ${w > gs ? '+' : '-'}${Math.abs(w - gs).toFixed(2)}`);
  }
  if (carriedBy) add(`top carrier: ${carriedBy.src}`);
  if (process.argv.includes('--verbose')) {
    process.stdout.write(`\nMISS ${repo} ${q.id} gold@${goldRank === 99 ? '-' : goldRank} ${goldPath} | wrong ${wrongPath}\n  ${rows.join('  ')}\n`);
  }
}

async function main(): Promise<void> {
  const config = arg('--config') ? (JSON.parse(arg('--config')!) as ConfigInput) : undefined;
  await forEachTuneIssue(issueSetOf(arg('--sets')), arg('--only')?.split(','), config, analyse);
  process.stdout.write(`\n== ${misses} misses of ${texts} texts (gold file not in the top 5)\n`);
  for (const [k, v] of [...tally].sort((a, b) => a[0].localeCompare(b[0]))) process.stdout.write(`${k.padEnd(48)} ${Number.isInteger(v) ? v : v.toFixed(2)}\n`);
}

await main();
