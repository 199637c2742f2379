import { DomUtils, parseDocument } from 'htmlparser2';
import { DEFAULT_DOCUMENT_LIMITS, headingText, type DocumentLimits, type Extracted } from './document.js';

type DomNode = ReturnType<typeof parseDocument>['children'][number];

/** Elements whose content is never the page's text. */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'nav', 'svg', 'canvas', 'iframe', 'object', 'head', 'form', 'button', 'select']);
/** Elements that end a line of text. */
const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'li', 'ul', 'ol', 'table', 'tr', 'br', 'pre', 'blockquote', 'dd', 'dt', 'dl', 'hr', 'figure', 'figcaption', 'header', 'footer', 'aside', 'details', 'summary']);

interface Walk {
  readonly out: string[];
  /** Drop `<blockquote>` too (an e-mail's quoted reply). */
  readonly dropQuotes: boolean;
  line: string;
  chars: number;
}

function endLine(w: Walk): void {
  const t = w.line.replace(/\s+/g, ' ').trim();
  if (t !== '') w.out.push(t);
  w.chars += t.length;
  w.line = '';
}

function walk(nodes: readonly DomNode[], w: Walk, limits: DocumentLimits): void {
  for (const node of nodes) {
    if (w.chars > limits.maxChars) return;
    if (node.type === 'text') w.line += (node as { data: string }).data;
    if (!('name' in node) || !('children' in node)) continue;
    const name = node.name.toLowerCase();
    if (DROPPED.has(name) || (w.dropQuotes && name === 'blockquote') || node.attribs.role === 'navigation' || node.attribs['aria-hidden'] === 'true') continue;
    const heading = /^h([1-6])$/.exec(name);
    if (heading) {
      endLine(w);
      const text = headingText(DomUtils.textContent(node));
      if (text !== '') w.out.push('', `${'#'.repeat(Number(heading[1]))} ${text}`, '');
      continue;
    }
    if (BLOCK.has(name)) endLine(w);
    walk(node.children as DomNode[], w, limits);
    if (BLOCK.has(name)) endLine(w);
  }
}

/**
 * An HTML page's main text by headings (htmlparser2): the `<main>` element (else the first
 * `<article>`, else the body), without scripts, styles, navigation and forms; `<h1>`–`<h6>`
 * become markdown headings, so chunks are cited by heading path. The title is the top heading
 * when the page has no `<h1>`.
 */
export function extractHtml(text: string, limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS, options: { dropQuotes?: boolean } = {}): Extracted {
  if (text.length > limits.maxChars * 4) return { ok: false, reason: 'too_large', detail: `${text.length} characters of HTML` };
  const doc = parseDocument(text, { decodeEntities: true, lowerCaseTags: true });
  const main = DomUtils.findOne((e) => e.name === 'main', doc.children, true) ?? DomUtils.findOne((e) => e.name === 'article', doc.children, true);
  const body = main ?? DomUtils.findOne((e) => e.name === 'body', doc.children, true);
  const title = DomUtils.findOne((e) => e.name === 'title', doc.children, true);
  const w: Walk = { out: [], dropQuotes: options.dropQuotes === true, line: '', chars: 0 };
  walk(body ? [body] : doc.children, w, limits);
  endLine(w);
  if (w.chars > limits.maxChars) return { ok: false, reason: 'too_large', detail: `over ${limits.maxChars} characters of text` };
  const lines = w.out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  if (lines === '') return { ok: false, reason: 'no_text', detail: 'no text outside scripts, styles and navigation' };
  const titleText = title ? headingText(DomUtils.textContent(title)) : '';
  const hasH1 = /^# /m.test(lines);
  return { ok: true, text: `${titleText && !hasH1 ? `# ${titleText}\n\n` : ''}${lines}\n`, metadata: titleText ? { title: titleText } : undefined };
}
