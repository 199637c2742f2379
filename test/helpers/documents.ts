import PDFDocument from 'pdfkit';

/** A PDF made by pdfkit: one page per entry, each a heading (larger type) and body paragraphs. */
export function makePdf(pages: readonly { heading: string; body: readonly string[] }[], options: { userPassword?: string } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false, ...(options.userPassword ? { userPassword: options.userPassword, pdfVersion: '1.7' as const } : {}), info: { CreationDate: new Date(Date.UTC(2024, 0, 1)) } });
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    for (const p of pages) {
      doc.addPage();
      doc.fontSize(20).text(p.heading);
      for (const para of p.body) doc.fontSize(11).text(para);
    }
    doc.end();
  });
}

/** A PDF whose only page is a drawing: no text layer (what a scan looks like to a text extractor). */
export function makeImageOnlyPdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument();
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    doc.rect(50, 50, 200, 100).fill('#333');
    doc.end();
  });
}

export interface MailSpec {
  readonly id: string;
  readonly inReplyTo?: string;
  readonly from: string;
  readonly to: string;
  readonly date: string;
  readonly subject: string;
  /** Plain text body; with `html`, the message is multipart/alternative. */
  readonly text?: string;
  readonly html?: string;
}

/** One RFC 5322 message with real MIME structure (multipart/alternative when it has HTML). */
export function makeMessage(m: MailSpec): string {
  const head = [`Message-ID: <${m.id}>`, ...(m.inReplyTo ? [`In-Reply-To: <${m.inReplyTo}>`, `References: <${m.inReplyTo}>`] : []), `From: ${m.from}`, `To: ${m.to}`, `Date: ${m.date}`, `Subject: ${m.subject}`, 'MIME-Version: 1.0'];
  if (!m.html) return [...head, 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', m.text ?? '', ''].join('\r\n');
  const b = `b-${m.id.replace(/[^a-z0-9]/gi, '')}`;
  return [
    ...head,
    `Content-Type: multipart/alternative; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    m.html.replace(/=/g, '=3D'),
    `--${b}--`,
    '',
  ].join('\r\n');
}

/** An mbox of messages (mboxrd: body lines starting with `From ` are escaped). */
export function makeMbox(messages: readonly MailSpec[]): string {
  return messages.map((m) => `From ${m.from.replace(/.*<|>.*/g, '')} ${new Date(m.date).toUTCString()}\n${makeMessage(m).replace(/\r\n/g, '\n').replace(/^From /gm, '>From ')}\n`).join('');
}
