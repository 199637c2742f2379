/**
 * The prepare step of an index pass alone (read, decode, refuse, parse, chunk, symbols, FTS
 * fields, hashes, and the built-in model's vectors), in one thread, no database: CPU per round
 * and a digest of everything it hands the writer, so that a change can be shown to store the same
 * rows (issue 19).
 *
 *   npx tsx bench/prepare-cpu.ts --root DIR            prepare every file the walk finds under DIR
 *   npx tsx bench/prepare-cpu.ts --root DIR --rounds 3 rounds alternate with and without the model
 *   npx tsx bench/prepare-cpu.ts --root DIR --files 2000   an evenly spaced sample of the walk
 *
 * Each round prepares the files in the pass's batches (500 files or 16 MB) with `prepareBatch`,
 * as a worker does, with a fresh set of embedded texts (`seen`) per round, so every round embeds
 * what a pass embeds. Rounds alternate: with the model (the default), then without (`embed` off:
 * the lexical prepare); their difference is the model's share. The first round of each kind is a
 * warm-up (grammars and the model load; JIT) and is not counted. The digest is a sha256 over each
 * prepared file's path, hash, chunks (every field), symbols, imports, fallbacks and vectors, in
 * walk order, plus the refused files and their reasons: two builds that print the same digest
 * hand the writer the same rows.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileCandidate } from '../src/core/file.js';
import { resolveConfig } from '../src/config/resolve.js';
import { walk } from '../src/discover/walk.js';
import { loadChunkEmbedder } from '../src/indexer/chunk-vectors.js';
import { prepareBatch, type PrepareConfig, type PreparedBatch, type PrepareEmbedding } from '../src/indexer/prepare.js';
import { parseArgs } from './results.js';
import { fmtMB, MB } from './stats.js';

const BATCH_FILES = 500;
const BATCH_BYTES = 16 * 1024 * 1024;

function batches(work: readonly FileCandidate[]): FileCandidate[][] {
  const out: FileCandidate[][] = [];
  for (let i = 0; i < work.length; ) {
    const batch: FileCandidate[] = [];
    let bytes = 0;
    while (i < work.length && batch.length < BATCH_FILES && bytes < BATCH_BYTES) {
      batch.push(work[i]!);
      bytes += work[i]!.size;
      i++;
    }
    out.push(batch);
  }
  return out;
}

function spread<T>(items: readonly T[], n: number): T[] {
  if (n === 0 || n >= items.length) return [...items];
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

/** Everything a prepared batch hands the writer, into the digest. */
function digestBatch(h: ReturnType<typeof createHash>, batch: PreparedBatch, counts: { chunks: number; symbols: number; vectors: number }): void {
  for (const f of batch.files) {
    if (!f.ok) {
      h.update(`skip ${f.candidate.path} ${f.reason}\n`);
      continue;
    }
    h.update(`file ${f.path} ${f.hash} ${f.language} ${f.contentType} ${f.lineCount} ${f.parser} ${f.fallback} ${f.metadata} ${f.stem}\n`);
    h.update(JSON.stringify(f.chunks));
    h.update(JSON.stringify(f.symbols));
    h.update(JSON.stringify(f.imports));
    h.update(JSON.stringify(f.redactions));
    if (f.vectors) h.update(f.vectors);
    counts.chunks += f.chunks.length;
    counts.symbols += f.symbols.length;
    if (f.vectors) counts.vectors += f.chunks.length;
  }
  h.update(JSON.stringify(batch.fallbacks));
}

async function round(config: PrepareConfig, work: readonly FileCandidate[][], embedding: PrepareEmbedding | undefined, windowsOver: number): Promise<{ cpuMs: number; digest: string; chunks: number; symbols: number; vectors: number }> {
  const h = createHash('sha256');
  const counts = { chunks: 0, symbols: 0, vectors: 0 };
  let cpuMs = 0;
  for (const b of work) {
    const c0 = process.cpuUsage();
    const small = b.filter((c) => c.size <= windowsOver);
    const batch = await prepareBatch(config, small, {}, undefined, undefined, embedding);
    if (small.length < b.length) {
      const large = await prepareBatch({ ...config, syntax: false }, b.filter((c) => c.size > windowsOver), {}, undefined, undefined, embedding);
      batch.files.push(...large.files);
      batch.fallbacks.push(...large.fallbacks);
    }
    const c = process.cpuUsage(c0);
    cpuMs += (c.user + c.system) / 1000;
    digestBatch(h, batch, counts);
  }
  return { cpuMs, digest: h.digest('hex').slice(0, 16), ...counts };
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const root = values.get('root');
  if (!root) throw new Error('--root DIR is required');
  const rounds = Number(values.get('rounds') ?? 2);
  const windowsOver = Number(values.get('windows-over') ?? Infinity);
  const scratch = mkdtempSync(join(tmpdir(), 'scry-prepare-cpu-'));
  const config = await resolveConfig({ root, db: join(scratch, 'unused.db') });
  rmSync(scratch, { recursive: true, force: true });
  const found: FileCandidate[] = [];
  walk({ root, maxFileBytes: config.maxFileBytes, ignore: config.ignore, denylist: config.denylist }, { file: (c) => found.push(c), skip: () => {} });
  const files = spread(found, Number(values.get('files') ?? 0));
  const bytes = files.reduce((n, c) => n + c.size, 0);
  const embed = { maxChars: Number(values.get('embed-max-chars') ?? config.embed.maxChars), storage: config.embed.storage };
  const base: PrepareConfig = { root, maxFileBytes: config.maxFileBytes, chunk: config.chunk, syntax: config.syntax, parseTimeoutMs: config.parseTimeoutMs, documents: config.documents };
  const embedder = await loadChunkEmbedder(embed);
  if (!embedder) throw new Error('the built-in model did not load');
  const work = batches(files);
  const over = files.filter((c) => c.size > windowsOver);
  if (over.length > 0) console.log(`what-if: ${over.length} files over ${windowsOver} bytes (${fmtMB(over.reduce((n, c) => n + c.size, 0))}) chunked by line windows`);
  console.log(`${files.length} files, ${fmtMB(bytes)}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (let r = 0; r <= rounds; r++) {
    for (const withModel of [true, false]) {
      const res = await round({ ...base, embed: withModel ? embed : undefined }, work, withModel ? { embedder, seen: new Set() } : undefined, windowsOver);
      const label = `${r === 0 ? 'warm-up' : `round ${r}`} ${withModel ? 'model   ' : 'no model'}`;
      console.log(`${label}  cpu ${res.cpuMs.toFixed(0).padStart(6)} ms  ${(bytes / MB / (res.cpuMs / 1000)).toFixed(2)} MB/s per core  chunks ${res.chunks} symbols ${res.symbols} vectors ${res.vectors}  digest ${res.digest}`);
    }
  }
  console.log(`load after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

await main();
