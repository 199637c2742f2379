import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DEFAULT_DOCUMENT_LIMITS, headingText, type DocumentLimits, type Extracted } from './document.js';

/** A line of a page as pdf.js lays it out: its text and the largest glyph height on it. */
interface Line {
  text: string;
  height: number;
}

interface TextItemLike {
  readonly str?: string;
  readonly hasEOL?: boolean;
  readonly height?: number;
}

function pageLines(items: readonly TextItemLike[]): Line[] {
  const lines: Line[] = [];
  let cur: Line = { text: '', height: 0 };
  const flush = (): void => {
    if (cur.text.trim() !== '') lines.push({ text: cur.text.replace(/\s+/g, ' ').trim(), height: cur.height });
    cur = { text: '', height: 0 };
  };
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    cur.text += item.str;
    if (item.str.trim() !== '') cur.height = Math.max(cur.height, item.height ?? 0);
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

/**
 * Heading-like lines: set in a larger type than the page's body text (median height × 1.15), or a
 * numbered title (`2. Remediation`, `3.1 Scope`); short, never a sentence that runs on.
 */
function isHeading(line: Line, body: number): boolean {
  if (line.text.length > 90 || /[.:;,]$/.test(line.text)) return false;
  if (body > 0 && line.height > body * 1.15) return true;
  return /^\d+(\.\d+)*\.?\s+\p{Lu}/u.test(line.text) && line.text.split(' ').length <= 10;
}

/** The body text's type size: the glyph height that sets the most characters on the page. */
function bodyHeight(lines: readonly Line[]): number {
  const chars = new Map<number, number>();
  for (const l of lines) if (l.height > 0) chars.set(Math.round(l.height * 10) / 10, (chars.get(Math.round(l.height * 10) / 10) ?? 0) + l.text.length);
  let best = 0;
  let most = -1;
  for (const [h, n] of chars) if (n > most || (n === most && h < best)) [best, most] = [h, n];
  return best;
}

function renderPage(n: number, lines: readonly Line[]): string {
  const body = bodyHeight(lines);
  const out = [`# Page ${n}`, ''];
  for (const l of lines) out.push(isHeading(l, body) ? `\n## ${headingText(l.text)}\n` : l.text);
  return `${out.join('\n')}\n`;
}

/**
 * pdf.js's character maps and standard font metrics, read from its own package directory (local
 * files, never the network): without the maps, text set in CID fonts (CJK) comes out empty.
 */
function pdfjsData(): { cMapUrl: string; standardFontDataUrl: string } {
  const dir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return { cMapUrl: `${join(dir, 'cmaps')}/`, standardFontDataUrl: `${join(dir, 'standard_fonts')}/` };
}

const errorName = (err: unknown): string => (typeof err === 'object' && err !== null && 'name' in err ? String((err as { name: unknown }).name) : '');

/**
 * Text per page with pdf.js (the legacy build, for Node), rendered as `# Page N` sections with
 * heading-like lines as subsections. Encrypted PDFs → `encrypted`; no text on any page (scans,
 * image-only) → `no_text`; unparsable → `malformed`; over the limits → `too_large`.
 */
export async function extractPdf(bytes: Uint8Array, limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS): Promise<Extracted> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // a copy: pdf.js takes ownership of (and detaches) the buffer it is given
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), ...pdfjsData(), cMapPacked: true, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0, stopAtErrors: false });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy();
    if (errorName(err) === 'PasswordException') return { ok: false, reason: 'encrypted' };
    return { ok: false, reason: 'malformed', detail: err instanceof Error ? err.message : String(err) };
  }
  try {
    if (doc.numPages > limits.maxPages) return { ok: false, reason: 'too_large', detail: `${doc.numPages} pages` };
    const pages: string[] = [];
    let chars = 0;
    let textPages = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      page.cleanup();
      const lines = pageLines(content.items as TextItemLike[]);
      if (lines.length > 0) textPages++;
      const rendered = renderPage(n, lines);
      chars += rendered.length;
      if (chars > limits.maxChars) return { ok: false, reason: 'too_large', detail: `over ${limits.maxChars} characters of text` };
      pages.push(rendered);
    }
    if (textPages === 0) return { ok: false, reason: 'no_text', detail: 'no text layer (scanned or image-only)' };
    return { ok: true, text: pages.join('\n'), metadata: { pages: doc.numPages } };
  } catch (err) {
    return { ok: false, reason: 'malformed', detail: err instanceof Error ? err.message : String(err) };
  } finally {
    await doc.destroy();
  }
}
