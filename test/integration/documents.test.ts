/**
 * Documents in a collection (issue 22), through a real index pass: PDFs (pdfkit), an mbox with
 * MIME structure, an .eml and HTML pages are extracted, chunked and searchable; bad documents
 * (encrypted, image-only, broken, not an mbox, wrongly encoded) end as skip reasons while every
 * other file is still indexed.
 */
import { execFileSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCollection, openCollection, type Engine, type IndexReport } from '../../src/index.js';
import { makeImageOnlyPdf, makeMbox, makeMessage, makePdf } from '../helpers/documents.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

describe('documents in a collection', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let report: IndexReport;

  beforeAll(async () => {
    t = tempDir('scry-docs-');
    const root = join(t.dir, 'docs');
    writeTree(root, {
      'notes/runbook.md': '---\nstatus: open\n---\n# Failover runbook\n\nPromote the replica when the primary is down.\n',
      'web/deploy.html': '<html><head><title>Deploy</title><script>var scriptonly = 1</script></head><body><nav>menuword</nav><main><h1>Deploy guide</h1><p>Blue green rollout.</p><h2>Rollback</h2><p>Flip the router back to blue.</p></main></body></html>',
      'mail/one.eml': makeMessage({ id: 'k@x', from: 'Cy <cy@x.org>', to: 'dev@x.org', date: '2023-05-05T12:00:00Z', subject: 'Quarterly key rotation', text: 'Rotate the signing keys before June.' }),
      'mail/ops.mbox': makeMbox([
        { id: 'a@x', from: 'Ann <ann@x.org>', to: 'ops@x.org', date: '2024-03-01T10:00:00Z', subject: 'Cache eviction storm', text: 'The LRU cache evicts everything at midnight.' },
        { id: 'b@x', inReplyTo: 'a@x', from: 'Bob <bob@x.org>', to: 'ops@x.org', date: '2024-03-02T09:00:00Z', subject: 'Re: Cache eviction storm', html: '<p>The <b>TTL jitter</b> is missing.</p>' },
      ]),
      'bad/notmbox.mbox': 'hello, not an mbox\n',
      'bad/broken.pdf': '%PDF-1.7\n1 0 obj <</Length 99999999>> stream\nxx',
    });
    writeFileSync(join(root, 'review.pdf'), await makePdf([{ heading: 'Incident review', body: ['The failover took eleven minutes.'] }, { heading: 'Remediation', body: ['Add a health check on replica lag.'] }]));
    writeFileSync(join(root, 'bad/locked.pdf'), await makePdf([{ heading: 'Plan', body: ['lockedword'] }], { userPassword: 'pw' }));
    writeFileSync(join(root, 'bad/scan.pdf'), await makeImageOnlyPdf());
    writeFileSync(join(root, 'bad/latin1.html'), Buffer.from('<h1>Caf\xe9 menu</h1><p>cr\xe8me br\xfbl\xe9e</p>', 'latin1'));
    const env = isolatedEnv(t.dir);
    addCollection('docs', root, { env });
    engine = await openCollection('docs', { env });
    report = await engine.index();
  });
  afterAll(() => {
    engine?.close();
    t.cleanup();
  });

  const top = async (q: string) => (await engine.search(q, { limit: 3 })).results;

  it('indexes every readable document and skips each bad one with its reason', () => {
    expect(report.skipped).toMatchObject({ encrypted: 1, no_text: 1, malformed: 2 });
    const listed = engine.status();
    expect(listed.files).toBe(6); // runbook.md, deploy.html, latin1.html, one.eml, ops.mbox, review.pdf: nothing bad
  });

  it('cites a PDF chunk by page, and finds text under its heading', async () => {
    const [hit] = await top('replica lag health check');
    expect(hit).toMatchObject({ path: 'review.pdf', language: 'pdf', contentType: 'docs', cite: 'review.pdf#page=2' });
    expect(hit!.container ?? hit!.symbol).toMatch(/^Page 2/);
  });

  it('finds a mail reply that was HTML only, cited by its thread and message heading', async () => {
    const [hit] = await top('TTL jitter');
    expect(hit).toMatchObject({ path: 'mail/ops.mbox', language: 'mbox' });
    expect(`${hit!.container} > ${hit!.symbol}`).toContain('2024-03-02T09:00:00.000Z');
    expect((await top('signing keys June'))[0]).toMatchObject({ path: 'mail/one.eml' });
    // headers are fields: any sender of a thread file filters it
    expect(new Set((await engine.search('cache', { where: { from: 'bob@x.org' } })).results.map((r) => r.path))).toEqual(new Set(['mail/ops.mbox']));
    expect((await engine.search('signing keys', { where: { from: 'bob@x.org' } })).results).toEqual([]);
  });

  it('reads HTML pages as text by headings: scripts and navigation are not indexed', async () => {
    expect((await top('router back blue'))[0]).toMatchObject({ path: 'web/deploy.html', symbol: 'Rollback' });
    expect(await top('scriptonly')).toEqual([]);
    expect(await top('menuword')).toEqual([]);
    expect((await top('crème brûlée'))[0]).toMatchObject({ path: 'bad/latin1.html' });
  });
});

describe('frontmatter filters and the recency boost', () => {
  let t: ReturnType<typeof tempDir>;
  const NOW = Date.UTC(2025, 5, 1);
  const open = async (recency: number) => {
    const env = isolatedEnv(t.dir);
    const engine = await openCollection('tickets', { env, clock: { now: () => NOW }, config: { embed: { provider: 'none' }, search: { ranking: { recency } } } });
    await engine.index();
    return engine;
  };

  beforeAll(() => {
    t = tempDir('scry-recency-');
    const root = join(t.dir, 'tickets');
    // the same words, so BM25 ties them up to length: only the dates can tell them apart
    writeTree(root, {
      'a-old.md': '---\nstatus: closed\ntags: [auth, api]\ndate: 2019-02-01\n---\n# Login token expiry\n\nThe login token expires too early for mobile clients.\n',
      'b-new.md': '---\nstatus: open\ntags: [auth]\nupdated: 2025-05-20\n---\n# Login token expiry\n\nThe login token expires too early for mobile clients.\n',
      'c-none.md': '# Unrelated\n\nNothing here about tokens.\n',
    });
    addCollection('tickets', root, { env: isolatedEnv(t.dir) });
  });
  afterAll(() => t.cleanup());

  it('filters by frontmatter fields, scalars and list elements alike', async () => {
    const engine = await open(0);
    try {
      const paths = async (where: Record<string, string>) => (await engine.search('login token', { where })).results.map((r) => r.path);
      expect(await paths({ status: 'open' })).toEqual(['b-new.md']);
      expect(await paths({ tags: 'api' })).toEqual(['a-old.md']);
      expect((await paths({ tags: 'auth' })).sort()).toEqual(['a-old.md', 'b-new.md']);
      expect(await paths({ status: 'open', tags: 'api' })).toEqual([]);
      await expect(engine.search('login', { where: { 'bad field!': 'x' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      // without recency the two tickets tie and the older one comes first: the boost below is what moves it
      const res = await engine.search('login token expires', { explain: true });
      expect(res.results[0]!.path).toBe('a-old.md');
      expect(res.results[0]!.why!.some((w) => w.startsWith('recency'))).toBe(false);
    } finally {
      engine.close();
    }
  });

  it('ranks the recently updated ticket first when recency is on, and says so in --explain', async () => {
    const engine = await open(0.15);
    try {
      const res = await engine.search('login token expires', { explain: true });
      expect(res.results[0]!.path).toBe('b-new.md');
      expect(res.results[0]!.why!.some((w) => /^recency ×1\.1\d+ \(age 12 d\)$/.test(w))).toBe(true);
      const old = res.results.find((r) => r.path === 'a-old.md')!;
      expect(old.why!.some((w) => w.startsWith('recency ×1.00'))).toBe(true);
    } finally {
      engine.close();
    }
  });
});

describe('content timestamps from git history', () => {
  it("dates undated files by their last commit, not by the checkout's mtime", async () => {
    const t = tempDir('scry-gitdates-');
    try {
      const root = join(t.dir, 'wiki');
      const git = (args: string[], date?: string) =>
        execFileSync('git', ['-C', root, ...args], { env: { PATH: process.env.PATH ?? '', HOME: t.dir, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) } });
      writeTree(root, { 'a-guide.md': '# Deploy guide\n\nRoll out the release with the canary script.\n' });
      git(['init', '-q']);
      git(['add', '.']);
      git(['commit', '-q', '-m', 'old'], '2019-01-01T00:00:00Z');
      writeTree(root, { 'b-guide.md': '# Deploy guide\n\nRoll out the release with the canary script.\n' });
      git(['add', '.']);
      git(['commit', '-q', '-m', 'new'], '2025-05-01T00:00:00Z');
      // a fresh checkout: both files have the same mtime
      const same = new Date(Date.UTC(2025, 5, 1));
      for (const f of ['a-guide.md', 'b-guide.md']) utimesSync(join(root, f), same, same);
      const env = isolatedEnv(t.dir);
      addCollection('wiki', root, { env });
      const engine = await openCollection('wiki', { env, clock: { now: () => Date.UTC(2025, 5, 1) } });
      try {
        await engine.index();
        const res = await engine.search('canary release', { explain: true });
        expect(res.results.map((r) => r.path)).toEqual(['b-guide.md', 'a-guide.md']);
        expect(res.results[0]!.why!.some((w) => w.includes('(age 31 d)'))).toBe(true);
        expect(res.results[1]!.why!.some((w) => /\(age 2343 d\)/.test(w))).toBe(true);
      } finally {
        engine.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
