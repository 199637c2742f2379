/**
 * The secret scanner on the pinned corpus (bench/corpus.ts): false positives and cost.
 *
 *   npx tsx bench/secret-scan.ts                  writes bench/results/secret-scan.json
 *   npx tsx bench/secret-scan.ts --files N        only the first N files of the walk (sorted)
 *   npx tsx bench/secret-scan.ts --index          also a full index of the same files, for the share of index time
 *
 * False positives: a corpus of published npm packages holds (almost) no real secret, so every
 * file skipped as `secret` by content and every redaction is a candidate false positive; the JSON
 * lists them all with the rule and the matched line cut to 160 characters, to check by hand.
 * Cost: each file is read and decoded once (decode timed); then the rule set (inspectContent) and
 * a reference pass over the same text (one lower-casing, the scanner's unavoidable minimum, plus a
 * line count) are timed on it, alternating their order file by file so that drift hits both
 * alike. Reported as ratios against the reference and the decode and, with --index, as a share of
 * the wall time of a full index of the corpus measured in the same run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileCandidate } from '../src/core/file.js';
import { decodeText } from '../src/discover/decode.js';
import { inspectContent } from '../src/discover/secret-content.js';
import { scanSecrets } from '../src/discover/secret-scan.js';
import { walk } from '../src/discover/walk.js';
import { createEngine } from '../src/index.js';
import { ensureCorpus } from './corpus.js';
import { environment, parseArgs, writeResult } from './results.js';
import { fmtMs, round2 } from './stats.js';

const MAX_FILE_BYTES = 1024 * 1024;

interface Finding {
  readonly path: string;
  readonly rule: string;
  readonly line: string;
}

function lineAt(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const end = text.indexOf('\n', at);
  return text.slice(start, end === -1 ? undefined : end).trim().slice(0, 160);
}

function candidates(root: string, limit: number | undefined): { files: FileCandidate[]; secretNames: string[] } {
  const files: FileCandidate[] = [];
  const secretNames: string[] = [];
  walk({ root, maxFileBytes: MAX_FILE_BYTES, ignore: [], denylist: { add: [], remove: [] } }, {
    file: (c) => files.push(c),
    skip: (s) => {
      if (s.reason === 'secret') secretNames.push(s.path);
    },
  });
  return { files: limit === undefined ? files : files.slice(0, limit), secretNames };
}

interface Tally {
  decodeMs: number;
  scanMs: number;
  referenceMs: number;
  bytes: number;
  scanned: number;
  sink: number;
  readonly skipped: Finding[];
  readonly redacted: Finding[];
}

/** Decodes one file, then times the scanner and the reference pass on its text, in alternating order. */
function measure(t: Tally, c: FileCandidate, order: number): void {
  let raw: Buffer;
  try {
    raw = readFileSync(c.absPath);
  } catch {
    return;
  }
  const d0 = performance.now();
  const decoded = decodeText(raw);
  t.decodeMs += performance.now() - d0;
  if (!decoded.ok) return;
  const text = decoded.text;
  t.scanned++;
  t.bytes += raw.length;
  let verdict: ReturnType<typeof inspectContent> | undefined;
  const scan = (): void => {
    const s = performance.now();
    verdict = inspectContent(text, [c.path]);
    t.scanMs += performance.now() - s;
  };
  const reference = (): void => {
    const s = performance.now();
    let lines = text.toLowerCase().length;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
    t.sink += lines;
    t.referenceMs += performance.now() - s;
  };
  if (order % 2 === 0) {
    scan();
    reference();
  } else {
    reference();
    scan();
  }
  if (verdict!.secret) {
    const header = /-----BEGIN[^\n]{0,60}|PuTTY-User-Key-File[^\n]{0,40}/.exec(text);
    t.skipped.push({ path: c.path, rule: verdict!.rule, line: header ? lineAt(text, header.index) : '' });
    return;
  }
  for (const f of scanSecrets(text).tokens) t.redacted.push({ path: c.path, rule: f.rule, line: lineAt(text, f.start) });
}

async function fullIndexMs(root: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'scry-bench-secrets-'));
  try {
    const engine = await createEngine({ root, db: join(dir, 'index.db') });
    const t = performance.now();
    await engine.index();
    const ms = performance.now() - t;
    engine.close();
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { flags, values } = parseArgs(process.argv.slice(2));
  const limit = values.has('files') ? Number(values.get('files')) : undefined;
  const { root } = await ensureCorpus();
  const { files, secretNames } = candidates(root, limit);
  const t: Tally = { decodeMs: 0, scanMs: 0, referenceMs: 0, bytes: 0, scanned: 0, sink: 0, skipped: [], redacted: [] };
  files.forEach((c, i) => measure(t, c, i));
  const indexMs = flags.has('index') ? await fullIndexMs(root) : undefined;
  const redactedFiles = new Set(t.redacted.map((r) => r.path)).size;
  const byRule: Record<string, number> = {};
  for (const f of [...t.skipped, ...t.redacted]) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
  const result = {
    environment: environment(),
    root,
    files: files.length,
    filesScanned: t.scanned,
    bytes: t.bytes,
    secretByName: secretNames,
    skippedByContent: t.skipped.length,
    redactedFiles,
    redactions: t.redacted.length,
    byRule,
    scanMs: round2(t.scanMs),
    referenceMs: round2(t.referenceMs),
    decodeMs: round2(t.decodeMs),
    scanOverReference: round2(t.scanMs / t.referenceMs),
    scanOverDecode: round2(t.scanMs / t.decodeMs),
    ...(indexMs !== undefined ? { indexMs: round2(indexMs), scanShareOfIndex: Math.round((t.scanMs / indexMs) * 10_000) / 10_000 } : {}),
    skipped: t.skipped,
    redacted: t.redacted,
  };
  const out = writeResult('secret-scan', result);
  console.log(`${t.scanned} files (${(t.bytes / 1024 / 1024).toFixed(1)} MB): ${secretNames.length} secrets by name, ${t.skipped.length} by content, ${redactedFiles} files redacted (${t.redacted.length} literals)`);
  console.log(`by rule: ${JSON.stringify(byRule)}`);
  console.log(`scanner ${fmtMs(t.scanMs)} · reference pass (lower-case + line count) ${fmtMs(t.referenceMs)} (scanner ×${result.scanOverReference}) · decode ${fmtMs(t.decodeMs)} (scanner ×${result.scanOverDecode})`);
  if (indexMs !== undefined) console.log(`full index ${fmtMs(indexMs)} in the same run: the scanner's time is ${(result.scanShareOfIndex! * 100).toFixed(1)}% of it`);
  console.log(`wrote ${out}`);
}

await main();
