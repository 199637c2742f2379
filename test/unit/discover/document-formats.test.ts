/**
 * The document extractors (issue 22) on files made by real libraries: PDFs by pdfkit, mail with
 * real MIME structure, HTML pages. Bad inputs end with a skip reason, never an exception.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/discover/formats/html.js';
import { extractMail, newText, threadSubject } from '../../../src/discover/formats/mail.js';
import { extractPdf } from '../../../src/discover/formats/pdf.js';
import { makeImageOnlyPdf, makeMbox, makeMessage, makePdf } from '../../helpers/documents.js';

const text = (r: Awaited<ReturnType<typeof extractPdf>>): string => (r.ok ? r.text : `skipped: ${r.reason}`);

describe('PDF (pdf.js)', () => {
  it('gives each page a `# Page N` section and larger-type lines their own heading', async () => {
    const pdf = await makePdf([
      { heading: 'Incident review', body: ['The database failover took eleven minutes.'] },
      { heading: 'Remediation plan', body: ['Add a health check on the replica lag.'] },
    ]);
    const r = await extractPdf(pdf);
    expect(r.ok).toBe(true);
    expect(text(r)).toContain('# Page 1');
    expect(text(r)).toMatch(/# Page 2\n[\s\S]*## Remediation plan\n[\s\S]*replica lag/);
    expect(r.ok && r.metadata).toEqual({ pages: 2 });
  });

  it('skips an encrypted PDF, an image-only PDF and a broken one, each with its reason', async () => {
    expect(await extractPdf(await makePdf([{ heading: 'Plan', body: ['hidden'] }], { userPassword: 'pw' }))).toMatchObject({ ok: false, reason: 'encrypted' });
    expect(await extractPdf(await makeImageOnlyPdf())).toMatchObject({ ok: false, reason: 'no_text' });
    expect(await extractPdf(Buffer.from('%PDF-1.7\n1 0 obj <</Length 99999999>> stream\nxx'))).toMatchObject({ ok: false, reason: 'malformed' });
    expect(await extractPdf(Buffer.from('not a pdf at all'))).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('stops at its limits instead of expanding without end (zip-bomb-like documents)', async () => {
    const pdf = await makePdf(Array.from({ length: 5 }, (_, i) => ({ heading: `Part ${i}`, body: ['x '.repeat(400)] })));
    expect(await extractPdf(pdf, { maxPages: 3, maxChars: 1e6 })).toMatchObject({ ok: false, reason: 'too_large' });
    expect(await extractPdf(pdf, { maxPages: 100, maxChars: 500 })).toMatchObject({ ok: false, reason: 'too_large' });
  });
});

describe('e-mail (mailparser)', () => {
  const thread = [
    { id: 'a@x', from: 'Ann <ann@x.org>', to: 'ops@x.org', date: '2024-03-01T10:00:00Z', subject: 'Cache eviction storm', text: 'The LRU cache evicts everything at midnight.\n\n-- \nAnn, SRE team' },
    { id: 'b@x', inReplyTo: 'a@x', from: 'Bob <bob@x.org>', to: 'ops@x.org', date: '2024-03-02T09:00:00Z', subject: 'Re: Cache eviction storm', html: '<p>It is the <b>TTL jitter</b> missing.</p><blockquote>The LRU cache evicts everything</blockquote>' },
    { id: 'b@x', inReplyTo: 'a@x', from: 'Bob <bob@x.org>', to: 'ops@x.org', date: '2024-03-02T09:00:00Z', subject: 'Re: Cache eviction storm', text: 'It is the TTL jitter missing.' },
    { id: 'c@x', from: 'Cy <cy@x.org>', to: 'dev@x.org', date: '2023-05-05T12:00:00Z', subject: 'Key rotation', text: 'Rotate the keys.\n\nOn Mon, 1 May 2023, Dee wrote:\n> please rotate\n> soon' },
  ];

  it('groups an mbox into threads, one message section each, quotes, signatures and duplicates dropped', async () => {
    const r = await extractMail(Buffer.from(makeMbox(thread)), 'mbox');
    expect(r.ok).toBe(true);
    const t = r.ok ? r.text : '';
    expect(t).toMatch(/## Cache eviction storm\n[\s\S]*### "?Ann"? <ann@x.org> — 2024-03-01T10:00:00.000Z[\s\S]*### "?Bob"? <bob@x.org> — 2024-03-02T09:00:00.000Z[\s\S]*TTL jitter/);
    expect(t).toMatch(/## Key rotation\n/);
    expect(t).not.toContain('Ann, SRE team'); // signature
    expect(t).not.toContain('please rotate'); // quoted reply
    expect(t).not.toContain('wrote:');
    expect(t.match(/TTL jitter/g)).toHaveLength(1); // the duplicate message and the HTML quote
    expect(t.match(/LRU cache evicts/g)).toHaveLength(1);
    expect(r.ok && r.metadata).toMatchObject({ subject: 'Cache eviction storm', from: ['ann@x.org', 'bob@x.org', 'cy@x.org'], messages: 4, date: '2024-03-02T09:00:00.000Z' });
  });

  it('reads a single .eml with its headers as fields', async () => {
    const r = await extractMail(Buffer.from(makeMessage(thread[3]!)), 'eml');
    expect(r.ok && r.metadata).toMatchObject({ subject: 'Key rotation', from: ['cy@x.org'], to: ['dev@x.org'], date: '2023-05-05T12:00:00.000Z' });
  });

  it('reads a legacy charset, and skips what is not an mbox', async () => {
    const latin = Buffer.concat([Buffer.from('Subject: Caf\xe9\r\nFrom: a@x\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\n', 'latin1'), Buffer.from('na\xefve r\xe9sum\xe9\r\n', 'latin1')]);
    const r = await extractMail(latin, 'eml');
    expect(r.ok && r.text).toContain('naïve résumé');
    expect(await extractMail(Buffer.from('hello\nnot an mbox\n'), 'mbox')).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('strips reply prefixes for threading and quoted lines from bodies', () => {
    expect(threadSubject('Re: AW: Fwd: Build broken')).toBe('build broken');
    expect(newText('new\n> old\n>> older\nmore\n-- \nsig')).toBe('new\nmore');
  });

  it('property: any bytes as .eml or .mbox end as text or a skip reason, never an exception', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), fc.constantFrom<'eml' | 'mbox'>('eml', 'mbox'), async (bytes, kind) => {
        const r = await extractMail(bytes, kind);
        if (!r.ok) expect(['malformed', 'no_text', 'too_large']).toContain(r.reason);
      }),
      { numRuns: 60 },
    );
  });
});

describe('HTML (htmlparser2)', () => {
  const page = '<html><head><title>Guide</title><style>.x{}</style><script>var hidden = "scriptword"</script></head><body><nav><a>navword</a></nav>' +
    '<main><h1>Deploy guide</h1><p>Blue green &amp; canary steps.</p><h2>Rollback</h2><p>Flip the router back.</p></main><footer>footerword</footer></body></html>';

  it('keeps the main text by headings, without scripts, styles and navigation', () => {
    const r = extractHtml(page);
    expect(r.ok && r.text).toBe('# Deploy guide\n\nBlue green & canary steps.\n\n## Rollback\n\nFlip the router back.\n');
    expect(r.ok && r.metadata).toEqual({ title: 'Guide' });
  });

  it('uses the title as the top heading of a page without h1, and skips a page with no text', () => {
    expect(extractHtml('<title>Notes</title><body><p>plain</p></body>')).toMatchObject({ ok: true, text: '# Notes\n\nplain\n' });
    expect(extractHtml('<script>only()</script>')).toMatchObject({ ok: false, reason: 'no_text' });
  });

  it('stops a huge page at its limit', () => {
    const huge = `<main>${'<p>word </p>'.repeat(20_000)}</main>`;
    expect(extractHtml(huge, { maxPages: 1, maxChars: 10_000 })).toMatchObject({ ok: false, reason: 'too_large' });
  });

  it('property: any string ends as text without markup-only content, or a skip reason', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), (s) => {
        const r = extractHtml(s);
        if (r.ok) expect(r.text).not.toMatch(/<script/i);
        else expect(['no_text', 'too_large']).toContain(r.reason);
      }),
      { numRuns: 300 },
    );
  });
});
