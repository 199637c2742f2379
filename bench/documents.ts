/**
 * Collections and documents (issue 22), against same-run references:
 *
 *   npx tsx bench/documents.ts            quality + throughput, writes bench/results/documents.json
 *   SCRY_BENCH_DOCS=/usr/share/doc npx tsx bench/documents.ts
 *                                         also indexes a real document set (any directory of
 *                                         PDFs, HTML, mail, markdown) and reports what it took and skipped
 *
 * Quality: the mixed collection of bench/documents-corpus.ts (code + markdown + mail + PDFs +
 * HTML), its 40 queries, file Acc@5 (the expected file among the first 5 distinct files) and
 * MRR@10, with the recency boost off (weight 0) and on (0.15, the collections' default).
 * Throughput: the same paragraphs written as markdown, PDF, mbox and HTML (~1 MB of text each),
 * each indexed into a fresh collection database; MB/s of bytes on disk and of extracted text,
 * each as a ratio against markdown in the same run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCollection, openCollection, type Engine } from '../src/index.js';
import { makeMbox, makePdf, type MailSpec } from '../test/helpers/documents.js';
import { QUERIES, writeMixedCorpus, type DocQuery } from './documents-corpus.js';
import { environment, writeResult } from './results.js';
import { prng, round2 } from './stats.js';

interface Scores {
  readonly acc5: number;
  readonly mrr10: number;
  readonly byKind: Record<string, { acc5: number; mrr10: number; n: number }>;
  readonly misses: string[];
}

async function score(engine: Engine, queries: readonly DocQuery[]): Promise<Scores> {
  let acc = 0;
  let rr = 0;
  const byKind: Record<string, { acc5: number; mrr10: number; n: number }> = {};
  const misses: string[] = [];
  for (const q of queries) {
    const results = (await engine.search(q.query, { limit: 50 })).results;
    const files = [...new Set(results.map((r) => r.path))];
    const rank = files.indexOf(q.expected) + 1;
    const hit5 = rank >= 1 && rank <= 5 ? 1 : 0;
    const r10 = rank >= 1 && rank <= 10 ? 1 / rank : 0;
    acc += hit5;
    rr += r10;
    const k = (byKind[q.kind] ??= { acc5: 0, mrr10: 0, n: 0 });
    k.acc5 += hit5;
    k.mrr10 += r10;
    k.n++;
    if (rank !== 1) misses.push(`${q.query} → expected ${q.expected} at ${rank || '-'}, got ${files[0] ?? '(none)'}`);
  }
  for (const k of Object.values(byKind)) {
    k.acc5 = round2(k.acc5 / k.n);
    k.mrr10 = round2(k.mrr10 / k.n);
  }
  return { acc5: round2(acc / queries.length), mrr10: round2(rr / queries.length), byKind, misses };
}

async function quality(work: string): Promise<{ off: Scores; on: Scores }> {
  const root = join(work, 'mixed');
  await writeMixedCorpus(root);
  const env = { SCRY_CACHE_DIR: join(work, 'cache') };
  addCollection('mixed', root, { env });
  const run = async (recency: number): Promise<Scores> => {
    const engine = await openCollection('mixed', { env, config: { search: { ranking: { recency } } } });
    try {
      await engine.index();
      return await score(engine, QUERIES);
    } finally {
      engine.close();
    }
  };
  return { off: await run(0), on: await run(0.15) };
}

const WORDS = 'the cache replica failover deploy router certificate queue latency storage budget incident review rollout flag logging retention webhook idempotency upgrade window capacity plan drill backup restore'.split(' ');

function paragraphs(n: number): string[] {
  const rand = prng(22);
  return Array.from({ length: n }, () => Array.from({ length: 60 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + '.');
}

/** The same text as four formats, one directory each. */
async function writeFormats(work: string): Promise<Record<string, string>> {
  const paras = paragraphs(2400); // ~1 MB of text
  const dirs: Record<string, string> = {};
  for (const f of ['markdown', 'pdf', 'mbox', 'html']) mkdirSync((dirs[f] = join(work, 'fmt', f)), { recursive: true });
  for (let doc = 0; doc < 24; doc++) {
    const part = paras.slice(doc * 100, doc * 100 + 100);
    writeFileSync(join(dirs.markdown!, `doc${doc}.md`), part.map((p, i) => `${i % 10 === 0 ? `## Section ${i}\n\n` : ''}${p}\n`).join('\n'));
    writeFileSync(join(dirs.html!, `doc${doc}.html`), `<html><body><main>${part.map((p, i) => `${i % 10 === 0 ? `<h2>Section ${i}</h2>` : ''}<p>${p}</p>`).join('')}</main></body></html>`);
    writeFileSync(join(dirs.pdf!, `doc${doc}.pdf`), await makePdf(Array.from({ length: 10 }, (_, i) => ({ heading: `Section ${i * 10}`, body: part.slice(i * 10, i * 10 + 10) }))));
    const mails: MailSpec[] = part.map((p, i) => ({ id: `m${doc}-${i}@x`, from: `u${i % 7}@example.org`, to: 'list@example.org', date: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(), subject: `Thread ${doc}-${Math.floor(i / 5)}`, text: p, ...(i % 5 ? { inReplyTo: `m${doc}-${i - (i % 5)}@x` } : {}) }));
    writeFileSync(join(dirs.mbox!, `doc${doc}.mbox`), makeMbox(mails));
  }
  return dirs;
}

async function throughput(work: string): Promise<Record<string, { mb: number; ms: number; mbPerS: number; ratioVsMarkdown: number; chunks: number; skipped: Record<string, number> }>> {
  const dirs = await writeFormats(work);
  const env = { SCRY_CACHE_DIR: join(work, 'cache') };
  const out: Record<string, { mb: number; ms: number; mbPerS: number; ratioVsMarkdown: number; chunks: number; skipped: Record<string, number> }> = {};
  for (const [format, dir] of Object.entries(dirs)) {
    addCollection(`fmt-${format}`, dir, { env });
    const engine = await openCollection(`fmt-${format}`, { env });
    try {
      const started = performance.now();
      const report = await engine.index();
      const ms = performance.now() - started;
      const mb = report.bytesIndexed / 1024 / 1024;
      out[format] = { mb: round2(mb), ms: Math.round(ms), mbPerS: round2(mb / (ms / 1000)), ratioVsMarkdown: 0, chunks: report.chunksWritten, skipped: report.skipped as Record<string, number> };
    } finally {
      engine.close();
    }
  }
  for (const f of Object.values(out)) f.ratioVsMarkdown = round2(f.mbPerS / out.markdown!.mbPerS);
  return out;
}

async function realSet(work: string, dir: string | undefined): Promise<unknown> {
  if (!dir) return undefined;
  const env = { SCRY_CACHE_DIR: join(work, 'cache') };
  addCollection('real', dir, { env, include: ['**/*.pdf', '**/*.html', '**/*.htm', '**/*.md', '**/*.eml', '**/*.mbox'] });
  const engine = await openCollection('real', { env });
  try {
    const started = performance.now();
    const report = await engine.index();
    const status = engine.status();
    return { dir, ms: Math.round(performance.now() - started), files: report.filesIndexed, chunks: report.chunksWritten, mb: round2(report.bytesIndexed / 1024 / 1024), skipped: report.skipped, languages: status.languages };
  } finally {
    engine.close();
  }
}

const work = mkdtempSync(join(tmpdir(), 'scry-bench-docs-'));
try {
  const q = await quality(work);
  const t = await throughput(work);
  const real = await realSet(work, process.env.SCRY_BENCH_DOCS);
  const file = writeResult('documents', { environment: environment(), quality: q, throughput: t, real });
  console.log(`40 queries over the mixed collection (code + markdown + mail + PDF + HTML):`);
  console.log(`  recency off: Acc@5 ${q.off.acc5}  MRR@10 ${q.off.mrr10}`);
  console.log(`  recency on:  Acc@5 ${q.on.acc5}  MRR@10 ${q.on.mrr10}`);
  for (const k of Object.keys(q.off.byKind)) console.log(`    ${k.padEnd(9)} off ${q.off.byKind[k]!.acc5}/${q.off.byKind[k]!.mrr10}  on ${q.on.byKind[k]!.acc5}/${q.on.byKind[k]!.mrr10}  (n=${q.off.byKind[k]!.n})`);
  console.log('throughput (MB on disk/s, ratio vs markdown):');
  for (const [f, r] of Object.entries(t)) console.log(`  ${f.padEnd(9)} ${r.mb} MB in ${r.ms} ms = ${r.mbPerS} MB/s (×${r.ratioVsMarkdown}), ${r.chunks} chunks`);
  if (real) console.log('real set:', JSON.stringify(real));
  console.log(`misses with recency on:\n  ${q.on.misses.join('\n  ')}`);
  console.log(`written ${file}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
