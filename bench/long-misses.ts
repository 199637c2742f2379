/**
 * Failure analysis of long issue-like queries (issue 18, "the right FILE in the top 5"): for each
 * tuning-half issue text of a set, where its gold file ranks (in the 50-chunk list and in files
 * mode), which files outrank it, and what the text mentions of the gold file (its name, its module
 * path, names it defines). Never run on the held-out half (it is for deciding what to build).
 *
 *   npx tsx bench/long-misses.ts [--sets large|devset] [--only owner/name,...] [--config JSON] > misses.txt
 */
import { basename, extname } from 'node:path';
import type { EvalQuery } from '../src/eval/queries-file.js';
import type { ConfigInput, Engine } from '../src/index.js';
import { forEachTuneIssue, issueSetOf } from './tune-issues.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** What the text says of a gold file: its file name, stem, dotted module path, defined names. */
export function mentionsOf(text: string, path: string, defined: readonly string[]): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  const name = basename(path).toLowerCase();
  const stem = basename(path, extname(path)).toLowerCase();
  const dotted = path.replace(/\.[^./]+$/, '').replace(/\//g, '.').toLowerCase();
  if (lower.includes(path.toLowerCase())) out.push('path');
  else if (lower.includes(dotted)) out.push('module');
  else if (lower.includes(name)) out.push('filename');
  else if (stem.length > 3 && new RegExp(`\\b${stem.replace(/[^\w]/g, '.')}\\b`).test(lower)) out.push('stem-word');
  const names = [...new Set(defined)].filter((n) => n.length > 3 && new RegExp(`(?<![\\w])${n.replace(/[$]/g, '\\$')}(?![\\w])`).test(text));
  if (names.length > 0) out.push(`defines:${names.slice(0, 6).join(',')}${names.length > 6 ? `+${names.length - 6}` : ''}`);
  return out;
}

async function analyse(engine: Engine, q: EvalQuery, repo: string): Promise<void> {
  const gold = [...new Set(q.expected.map((e) => e.path))];
  const chunks = (await engine.search(q.query, { limit: 50, rerank: false })).results;
  const order = [...new Set(chunks.map((h) => h.path))];
  const files = (await engine.search(q.query, { limit: 100, files: true, rerank: false })).results.map((h) => h.path);
  const rank = (list: readonly string[]): string => gold.map((g) => list.indexOf(g) + 1 || '-').join('/');
  const hit5 = gold.every((g) => { const i = order.indexOf(g); return i >= 0 && i < 5; });
  process.stdout.write(`\n${hit5 ? 'HIT ' : 'MISS'} ${repo} ${q.id} chunkRank ${rank(order)} filesRank ${rank(files)} gold ${gold.join(' ')}\n`);
  process.stdout.write(`  title: ${q.query.split('\n')[0]!.slice(0, 120)}\n`);
  for (const g of gold) {
    const outline = await engine.outline(g).catch(() => undefined);
    const defined = (outline?.symbols ?? []).flatMap(function names(s: { name: string; children?: readonly unknown[] }): string[] {
      return [s.name, ...((s.children ?? []) as Array<{ name: string; children?: readonly unknown[] }>).flatMap(names)];
    });
    process.stdout.write(`  mentions ${g}: ${mentionsOf(q.query, g, defined).join(' ') || 'none'}\n`);
  }
  process.stdout.write(`  top: ${order.slice(0, 6).map((p) => `${p}${gold.includes(p) ? '*' : ''}`).join(', ')}\n`);
}

async function main(): Promise<void> {
  const config = arg('--config') ? (JSON.parse(arg('--config')!) as ConfigInput) : undefined;
  await forEachTuneIssue(issueSetOf(arg('--sets')), arg('--only')?.split(','), config, analyse);
}

await main();
