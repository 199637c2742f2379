import { closeSync, constants, openSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ContentType, FileCandidate, SkipReason } from '../core/file.js';
import { contentHash } from '../core/hash.js';
import { decodeText } from './decode.js';
import { inspectContent } from './secret-content.js';
import { isInside } from './walk.js';
import { detectLanguage } from './language.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits, type Extracted } from './formats/document.js';

export type ReadResult =
  | {
      readonly ok: true;
      readonly text: string;
      /** sha256 of the raw bytes on disk. */
      readonly hash: string;
      readonly size: number;
      readonly encoding: string;
      readonly language: string;
      readonly contentType: ContentType;
      /** Token literals replaced in `text` by `«redacted:<rule>»`: rule id → count (empty when none). */
      readonly redactions: Readonly<Record<string, number>>;
      /** A document's fields from its extractor (subject, from, date, pages...), for filters and timestamps. */
      readonly metadata?: Readonly<Record<string, unknown>> | undefined;
    }
  | {
      readonly ok: false;
      readonly reason: SkipReason;
      readonly hash?: string;
      /** For a `secret` found by its content: the rule that matched (`private-key`, `registry-config-token`...). */
      readonly rule?: string;
    };

/**
 * Reads a candidate and decides whether its content may be indexed: resolves the path again
 * (a file may have become a symlink since the walk) and refuses anything outside the root,
 * decodes text, refuses binaries, minified blobs and content that holds key material, redacts
 * token literals (`«redacted:<rule>»`, within their line), and refines the language from the
 * shebang for extension-less scripts.
 */
function readNoFollow(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

type Bytes = { readonly ok: true; readonly bytes: Buffer; readonly real: string } | { readonly ok: false; readonly reason: SkipReason };

/** The bytes of a candidate, refusing links that left the root since the walk. */
function readBytes(root: string, candidate: FileCandidate): Bytes {
  let bytes: Buffer;
  let real = candidate.absPath;
  try {
    if (candidate.absPath === join(root, candidate.path)) {
      // Not a link when walked, in real directories (the walk never follows directory links):
      // refuse to follow it if it has become one since, without resolving every path component.
      bytes = readNoFollow(candidate.absPath);
    } else {
      real = realpathSync(candidate.absPath);
      if (!isInside(root, real)) {
        return { ok: false, reason: 'symlink_outside_root' };
      }
      bytes = readFileSync(real);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return { ok: false, reason: 'symlink_outside_root' };
    return { ok: false, reason: 'unreadable' };
  }
  return { ok: true, bytes, real };
}

/** The names a file's content is judged under: its path, and a link's target path too (`registry.cfg -> .npmrc`). */
function namesOf(root: string, candidate: FileCandidate, real: string): string[] {
  const target = relative(root, real).split(sep).join('/');
  return target === candidate.path ? [candidate.path] : [candidate.path, target];
}

export function readCandidate(root: string, candidate: FileCandidate, maxFileBytes: number): ReadResult {
  const read = readBytes(root, candidate);
  if (!read.ok) return read;
  const { bytes, real } = read;
  if (bytes.length > maxFileBytes) return { ok: false, reason: 'too_large' };
  const hash = contentHash(bytes);
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { ok: false, reason: decoded.reason, hash };
  const verdict = inspectContent(decoded.text, namesOf(root, candidate, real));
  if (verdict.secret) return { ok: false, reason: 'secret', hash, rule: verdict.rule };
  let { language, contentType } = candidate;
  const text = verdict.text;
  if (language === 'text' && text.startsWith('#!')) {
    const nl = text.indexOf('\n');
    ({ language, contentType } = detectLanguage(candidate.path, text.slice(0, nl === -1 ? 200 : Math.min(nl, 200))));
  }
  return { ok: true, text, hash, size: bytes.length, encoding: decoded.encoding, language, contentType, redactions: verdict.redactions };
}

/**
 * Reads a document through its extractor (discover/formats): a PDF, an e-mail or mbox file, or
 * (with `html: 'text'`) an HTML page. The same refusals as `readCandidate` (links, size, secrets in
 * the extracted text), plus the extractor's own (`encrypted`, `no_text`, `malformed`, `too_large`).
 * The hash is of the bytes on disk; the text is the extracted, markdown-shaped text.
 */
export async function readDocument(root: string, candidate: FileCandidate, maxBytes: number, limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS): Promise<ReadResult> {
  const read = readBytes(root, candidate);
  if (!read.ok) return read;
  const { bytes, real } = read;
  if (bytes.length > maxBytes) return { ok: false, reason: 'too_large' };
  const hash = contentHash(bytes);
  const extracted = await extract(candidate.language, bytes, limits);
  if (!extracted.ok) return { ok: false, reason: extracted.reason, hash };
  const verdict = inspectContent(extracted.text, namesOf(root, candidate, real));
  if (verdict.secret) return { ok: false, reason: 'secret', hash, rule: verdict.rule };
  return { ok: true, text: verdict.text, hash, size: bytes.length, encoding: 'utf-8', language: candidate.language, contentType: 'docs', redactions: verdict.redactions, metadata: extracted.metadata };
}

/** The extractors and their parsers are loaded on first use: a CLI start-up never pays for them. */
async function extract(language: string, bytes: Buffer, limits: DocumentLimits): Promise<Extracted> {
  if (language === 'pdf') return (await import('./formats/pdf.js')).extractPdf(bytes, limits);
  if (language === 'email' || language === 'mbox') return (await import('./formats/mail.js')).extractMail(bytes, language === 'mbox' ? 'mbox' : 'eml', limits);
  const decoded = decodeText(bytes);
  // a page of one enormous line is still a page: only binary content is refused before parsing
  if (!decoded.ok && decoded.reason === 'binary') return { ok: false, reason: 'malformed', detail: 'binary content' };
  const { extractHtml } = await import('./formats/html.js');
  return extractHtml(decoded.ok ? decoded.text : new TextDecoder('utf-8').decode(bytes), limits);
}
