/**
 * Documents whose bytes are not the text to index (issue 22): PDFs, e-mail, HTML pages. An
 * extractor turns them into markdown-shaped text (`# Page 3`, `## Subject`, `### From — date`),
 * which is what the index stores and the markdown chunker cuts, so every chunk keeps a heading
 * path to cite (`page 3 > Remediation`). Extractors only use real parsers from npm.
 */

/** Why a document yields nothing to index. Stable strings (they join SkipReason). */
export type DocumentSkip = 'encrypted' | 'no_text' | 'malformed' | 'too_large';

export type Extracted =
  | {
      readonly ok: true;
      /** Markdown-shaped text: headings give the chunker its sections. */
      readonly text: string;
      /** Fields to filter on and show (`subject`, `from`, `to`, `date`, `pages`...). */
      readonly metadata?: Readonly<Record<string, unknown>> | undefined;
    }
  | { readonly ok: false; readonly reason: DocumentSkip; readonly detail?: string | undefined };

/** Limits that keep a hostile document from exhausting memory or time. */
export interface DocumentLimits {
  /** Pages read at most; a PDF with more is `too_large`. Default 2,000. */
  readonly maxPages: number;
  /** Characters of extracted text at most (a zip-bomb-like stream); more is `too_large`. Default 8,000,000. */
  readonly maxChars: number;
}

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = { maxPages: 2000, maxChars: 8_000_000 };

/** A heading line of the extracted text: one line, no markdown of its own. */
export function headingText(s: string): string {
  return s.replace(/\s+/g, ' ').replace(/^#+\s*/, '').trim().slice(0, 200);
}
