import { Readable } from 'node:stream';
import type { AddressObject, ParsedMail } from 'mailparser';
import { extractHtml } from './html.js';
import { DEFAULT_DOCUMENT_LIMITS, headingText, type DocumentLimits, type Extracted } from './document.js';

/** One message, reduced to what is worth indexing. */
interface Message {
  readonly id: string | undefined;
  readonly parent: string | undefined;
  readonly root: string | undefined;
  readonly subject: string;
  readonly from: string;
  readonly to: string;
  /** Bare addresses (lowercase) of the sender and of the recipients, for `--where from=...`. */
  readonly fromAddresses: readonly string[];
  readonly toAddresses: readonly string[];
  readonly date: Date | undefined;
  readonly body: string;
}

const addresses = (a: AddressObject | AddressObject[] | undefined): string => (a === undefined ? '' : (Array.isArray(a) ? a.map((x) => x.text).join(', ') : a.text));

const bare = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (a === undefined ? [] : Array.isArray(a) ? a : [a]).flatMap((o) => o.value).flatMap((v) => [v.address, ...(v.group ?? []).map((g) => g.address)]).filter((x): x is string => !!x).map((x) => x.toLowerCase());

/** `Re: Fwd: AW: subject` → `subject`, for threading messages without references. */
export const threadSubject = (s: string): string => s.replace(/^\s*((re|fwd?|aw|wg|sv)\s*(\[\d+\])?:\s*)+/i, '').trim().toLowerCase();

/**
 * The new text of a message: quoted lines (`> ...`), the "On ... wrote:" line that introduces
 * them, everything after a signature delimiter (`-- `, RFC 3676) or a forwarded/original-message
 * banner, and runs of blank lines are dropped.
 */
export function newText(body: string): string {
  const out: string[] = [];
  for (const raw of body.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (line === '--' || raw === '-- ' || /^-{2,}\s*(original message|forwarded message)\s*-{2,}$/i.test(line.trim())) break;
    if (/^\s*>/.test(line)) continue;
    if (/^On .{4,200} wrote:$/.test(line.trim()) || /^Am .{4,200} schrieb .{1,200}:$/.test(line.trim())) continue;
    if (line === '' && out.at(-1) === '') continue;
    out.push(line);
  }
  return out.join('\n').trim();
}

function toMessage(m: ParsedMail): Message {
  const refs = Array.isArray(m.references) ? m.references : m.references ? [m.references] : [];
  // mailparser leaves `text` empty for an HTML-only message: its text by the HTML extractor, quotes dropped
  const fromHtml = typeof m.html === 'string' ? extractHtml(m.html, DEFAULT_DOCUMENT_LIMITS, { dropQuotes: true }) : undefined;
  const text = m.text ?? (fromHtml?.ok ? fromHtml.text.replace(/^#+ /gm, '') : '');
  return {
    id: m.messageId,
    parent: m.inReplyTo,
    root: refs[0] ?? m.inReplyTo,
    subject: m.subject ?? '(no subject)',
    from: addresses(m.from),
    to: addresses(m.to),
    fromAddresses: bare(m.from),
    toAddresses: [...bare(m.to), ...bare(m.cc)],
    date: m.date && !Number.isNaN(m.date.getTime()) ? m.date : undefined,
    body: newText(text),
  };
}

/** Groups messages into threads: by the first reference (the thread's root), else by subject. */
function threads(messages: readonly Message[]): Message[][] {
  const byKey = new Map<string, Message[]>();
  const keyOfId = new Map<string, string>();
  for (const m of messages) {
    const key = (m.root && keyOfId.get(m.root)) ?? (m.parent && keyOfId.get(m.parent)) ?? m.root ?? `subject:${threadSubject(m.subject)}`;
    if (m.id) keyOfId.set(m.id, key);
    byKey.set(key, [...(byKey.get(key) ?? []), m]);
  }
  return [...byKey.values()].map((t) => [...t].sort((a, b) => (a.date?.getTime() ?? 0) - (b.date?.getTime() ?? 0)));
}

/** Renders a thread: `## subject`, then `### from — date` per message; duplicates (same id, or a body already shown) once. */
function renderThread(thread: readonly Message[]): string {
  const seenIds = new Set<string>();
  const seenBodies = new Set<string>();
  const out = [`## ${headingText(thread[0]!.subject)}`, ''];
  for (const m of thread) {
    if (m.id && seenIds.has(m.id)) continue;
    if (m.id) seenIds.add(m.id);
    const paragraphs = m.body.split(/\n{2,}/).filter((p) => p.trim() !== '' && !seenBodies.has(p.trim()));
    for (const p of paragraphs) seenBodies.add(p.trim());
    out.push(`### ${headingText(m.from || 'unknown sender')} — ${m.date ? m.date.toISOString() : 'undated'}`, '');
    out.push(`From: ${m.from}`, `To: ${m.to}`, `Subject: ${m.subject}`, '');
    if (paragraphs.length > 0) out.push(paragraphs.join('\n\n'), '');
  }
  return out.join('\n');
}

/** The messages of an mbox, each as its raw bytes (node-mbox splits on the `From ` postmark lines). */
async function mboxMessages(bytes: Uint8Array): Promise<Buffer[]> {
  const { MboxStream } = await import('node-mbox');
  const data = Buffer.from(bytes);
  // the splitter keeps a last line only when it ends with a newline
  const input = Readable.from([data.at(-1) === 0x0a ? data : Buffer.concat([data, Buffer.from('\n')])]);
  const out: Buffer[] = [];
  return new Promise((resolve, reject) => {
    MboxStream(input)
      .on('data', (m: Buffer) => out.push(m))
      .on('end', () => resolve(out))
      .on('error', reject);
  });
}

/**
 * E-mail as threads (mailparser): `.eml` is one message, `.mbox` many. HTML-only bodies are
 * turned into text by mailparser; quoted replies and signatures are stripped; headers become
 * fields (subject, from, to, date of the newest message). Not an mbox, or no message with any
 * text → skipped with a reason.
 */
export async function extractMail(bytes: Uint8Array, kind: 'eml' | 'mbox', limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS): Promise<Extracted> {
  const { simpleParser } = await import('mailparser');
  let raws: Buffer[];
  try {
    raws = kind === 'mbox' ? await mboxMessages(bytes) : [Buffer.from(bytes)];
  } catch (err) {
    return { ok: false, reason: 'malformed', detail: err instanceof Error ? err.message : String(err) };
  }
  const messages: Message[] = [];
  for (const raw of raws) {
    try {
      messages.push(toMessage(await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true })));
    } catch {
      // one unreadable message does not lose the others
    }
  }
  const useful = messages.filter((m) => m.body !== '' || m.subject !== '(no subject)');
  if (useful.length === 0) return { ok: false, reason: messages.length === 0 ? 'malformed' : 'no_text', detail: `${raws.length} message(s), none with text` };
  const all = threads(useful);
  const text = all.map(renderThread).join('\n');
  if (text.length > limits.maxChars) return { ok: false, reason: 'too_large', detail: `over ${limits.maxChars} characters of text` };
  const dated = useful.filter((m) => m.date).sort((a, b) => b.date!.getTime() - a.date!.getTime());
  const first = useful[0]!;
  // fields to filter on: every sender's and recipient's bare address (`--where from=ann@example.org`)
  const uniq = (xs: string[]): string[] => [...new Set(xs)];
  const metadata: Record<string, unknown> = { subject: first.subject, from: uniq(useful.flatMap((m) => m.fromAddresses)), to: uniq(useful.flatMap((m) => m.toAddresses)), messages: useful.length };
  if (dated[0]) metadata.date = dated[0].date!.toISOString();
  // several threads: the file's first subject heads them all; one thread is its own top heading
  return { ok: true, text: all.length > 1 ? `# ${headingText(first.subject)}\n\n${text}` : text.replace(/^## /, '# ').replace(/^### /gm, '## '), metadata };
}
