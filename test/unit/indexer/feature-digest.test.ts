/**
 * INDEX_FEATURE_DIGESTS pins what indexing produces for a fixed set of inputs: a digest of the
 * prepared files — chunks (kinds, lines, bytes, hashes, symbols, containers, signatures, defined
 * names), the FTS fields built for them (chunkFields, fileFields), symbols, imports, parser,
 * fallback and metadata — for every input under test/golden/parse/, with tree-sitter and with
 * `syntax: false`, plus the parse work budget. When the output changes for the same input the
 * stored indexes are stale, and only a bump of INDEX_FEATURE_VERSION gets them re-chunked: this
 * test fails until the version is bumped and the new digest recorded next to it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FileCandidate } from '../../../src/core/file.js';
import { detectLanguage } from '../../../src/discover/language.js';
import { INDEX_FEATURE_DIGESTS, INDEX_FEATURE_VERSION } from '../../../src/indexer/feature-version.js';
import { prepareBatch, type PreparedFile, type PrepareConfig } from '../../../src/indexer/prepare.js';
import { PARSE_LIMITS } from '../../../src/parse/parse-budget.js';

const GOLDEN_DIR = fileURLToPath(new URL('../../golden/parse/', import.meta.url));
/** The production defaults (config/schema.ts): the digest is of what users get. */
const CONFIG: PrepareConfig = { root: GOLDEN_DIR, maxFileBytes: 1_000_000, chunk: { windowLines: 60, overlapLines: 8, maxBytes: 4096 }, syntax: true, documents: { maxBytes: 50_000_000, html: 'source' } };

/** A document read through its extractor (issue 22): a fixed two-message mbox, MIME and all. */
const MBOX = [
  'From ann@x.org Fri Mar  1 10:00:00 2024',
  'Message-ID: <a@x>', 'From: Ann <ann@x.org>', 'To: ops@x.org', 'Date: Fri, 01 Mar 2024 10:00:00 +0000', 'Subject: Cache eviction storm',
  'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', '', 'The LRU cache evicts everything at midnight.', '', '-- ', 'Ann', '',
  'From bob@x.org Sat Mar  2 09:00:00 2024',
  'Message-ID: <b@x>', 'In-Reply-To: <a@x>', 'References: <a@x>', 'From: Bob <bob@x.org>', 'To: ops@x.org', 'Date: Sat, 02 Mar 2024 09:00:00 +0000',
  'Subject: Re: Cache eviction storm', 'MIME-Version: 1.0', 'Content-Type: text/html; charset=utf-8', '', '<p>The <b>TTL jitter</b> is missing.</p><blockquote>The LRU cache</blockquote>', '',
].join('\n');

async function documentDigestInput(): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'scry-digest-'));
  try {
    writeFileSync(join(dir, 'ops.mbox'), MBOX);
    const st = statSync(join(dir, 'ops.mbox'));
    const batch = await prepareBatch({ ...CONFIG, root: dir }, [{ path: 'ops.mbox', absPath: join(dir, 'ops.mbox'), size: st.size, mtimeMs: Date.UTC(2025, 0, 1), language: 'mbox', contentType: 'docs' }]);
    return batch.files.map(stored);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function candidates(): FileCandidate[] {
  return readdirSync(GOLDEN_DIR)
    .filter((name) => !name.endsWith('.golden.json') && !name.startsWith('.'))
    .sort()
    .map((name) => {
      const absPath = join(GOLDEN_DIR, name);
      const st = statSync(absPath);
      return { path: name, absPath, size: st.size, mtimeMs: 0, language: detectLanguage(name).language, contentType: detectLanguage(name).contentType };
    });
}

/** JSON with object keys sorted: a refactor that builds the same rows in another key order keeps the digest. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What the index stores of a prepared file (the bytes are represented by their hash). */
function stored(file: PreparedFile): unknown {
  if (!file.ok) return { path: file.candidate.path, refused: file.reason };
  const { candidate: _candidate, bytes: _bytes, ...rows } = file;
  return rows;
}

async function featureDigest(): Promise<{ digest: string; files: number }> {
  const list = candidates();
  const parsed = await prepareBatch(CONFIG, list);
  const windows = await prepareBatch({ ...CONFIG, syntax: false }, list);
  expect(parsed.known).toEqual([]);
  // a grammar that failed to load would change the digest for a reason that is not the code's
  expect(parsed.fallbacks.filter((f) => f.reason === 'grammar_unavailable')).toEqual([]);
  const payload = canonical({ limits: PARSE_LIMITS, parsed: parsed.files.map(stored), windows: windows.files.map(stored), documents: await documentDigestInput() });
  return { digest: createHash('sha256').update(payload).digest('hex').slice(0, 16), files: parsed.files.length };
}

describe('INDEX_FEATURE_VERSION and the digest of index output', () => {
  it('the digest of the goldens is the one recorded for the current version', async () => {
    const { digest, files } = await featureDigest();
    expect(files).toBeGreaterThanOrEqual(25);
    const pinned = INDEX_FEATURE_DIGESTS[INDEX_FEATURE_VERSION];
    if (digest !== pinned) {
      throw new Error(
        `Index output changed for the same input: digest ${digest}, pinned ${pinned ?? '(none)'} for version ${INDEX_FEATURE_VERSION}. ` +
          `Existing indexes will not be re-chunked unless you bump INDEX_FEATURE_VERSION in src/indexer/feature-version.ts to ${INDEX_FEATURE_VERSION + 1}, ` +
          `add a line to its log saying what changed, and add ${INDEX_FEATURE_VERSION + 1}: '${digest}' to INDEX_FEATURE_DIGESTS (keep the older entries).`,
      );
    }
  });

  it('the digest is stable: computed twice, the same', async () => {
    expect((await featureDigest()).digest).toBe((await featureDigest()).digest);
  });

  it('the log of digests ends at the current version, one distinct digest per version', () => {
    const versions = Object.keys(INDEX_FEATURE_DIGESTS).map(Number);
    expect(Math.max(...versions)).toBe(INDEX_FEATURE_VERSION);
    const digests = Object.values(INDEX_FEATURE_DIGESTS);
    expect(new Set(digests).size).toBe(digests.length);
    for (const d of digests) expect(d).toMatch(/^[0-9a-f]{16}$/);
  });
});
