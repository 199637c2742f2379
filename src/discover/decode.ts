/**
 * Turns file bytes into text, or says why not. Decisions (documented in docs/DESIGN.md):
 * - a NUL byte in the first 8 KiB means binary, unless the file starts with a UTF-16 BOM;
 * - valid UTF-8 (with or without BOM) is used as is;
 * - UTF-8 with a few invalid bytes (at most 1 per 1000 characters) and real non-ASCII text is kept
 *   as UTF-8, the stray bytes replaced by U+FFFD;
 * - other invalid UTF-8 is decoded as windows-1252 (legacy Latin-1 sources stay searchable), unless
 *   more than 10% of it is control characters, which means binary;
 * - a file whose lines average over 1000 bytes, or with any line over 20 000 bytes in a file over
 *   20 KB, is `minified` (bundles and generated blobs drown search results).
 */
export type DecodeResult =
  | { readonly ok: true; readonly text: string; readonly encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' }
  | { readonly ok: false; readonly reason: 'binary' | 'minified' };

const SNIFF_BYTES = 8192;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

function countReplacements(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) n++;
  return n;
}

/**
 * WHATWG windows-1252 for bytes 0x80–0x9F (€, smart quotes, dashes...). Node 20.18.3+ decodes
 * `windows-1252` as ISO-8859-1 and yields C1 control characters there (nodejs/node#60888), so
 * the decoder's output is patched with this table; on a correct decoder it changes nothing.
 */
const CP1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  return new TextDecoder('windows-1252').decode(bytes).replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]!);
}

function hasNul(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

function controlRatio(text: string): number {
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) control++;
  }
  return text.length === 0 ? 0 : control / text.length;
}

export function isMinified(text: string): boolean {
  if (text.length < 20_000) return false;
  let lines = 1;
  let longest = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    lines++;
    if (i - start > longest) longest = i - start;
    start = i + 1;
  }
  if (text.length - start > longest) longest = text.length - start;
  return text.length / lines > 1000 || longest > 20_000;
}

export function decodeText(bytes: Uint8Array): DecodeResult {
  let text: string;
  let encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' = 'utf-8';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    text = new TextDecoder('utf-16le').decode(bytes);
    encoding = 'utf-16le';
  } else if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    text = new TextDecoder('utf-16be').decode(bytes);
    encoding = 'utf-16be';
  } else {
    if (hasNul(bytes)) return { ok: false, reason: 'binary' };
    try {
      text = utf8.decode(bytes);
    } catch {
      // A few stray bytes in an otherwise UTF-8 file: keep the UTF-8 (the stray bytes become
      // U+FFFD) rather than turning every accented character of the file into mojibake.
      const lenient = lenientUtf8.decode(bytes);
      // eslint-disable-next-line no-control-regex
      if (countReplacements(lenient) <= Math.max(2, lenient.length / 1000) && /[^\x00-\x7f\ufffd]/.test(lenient)) {
        text = lenient;
      } else {
        text = decodeWindows1252(bytes);
        encoding = 'windows-1252';
        if (controlRatio(text) > 0.1) return { ok: false, reason: 'binary' };
      }
    }
  }
  if (isMinified(text)) return { ok: false, reason: 'minified' };
  return { ok: true, text, encoding };
}
