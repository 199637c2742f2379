import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How a stored body is encoded (the `codec` column of `content`, schema 12): 0 — the UTF-8 text
 * as is; 1 — that text compressed with raw deflate. Bodies written before schema 12 are 0.
 */
export type ContentCodec = 0 | 1;

/** Bodies shorter than this are stored as is (deflate saves little on them, and costs a call). */
const MIN_PACK_BYTES = 256;
/**
 * Bodies longer than this are stored as is: a search result's snippet or text is a slice of its
 * file, and a compressed body is inflated whole to slice it (a 1 MB bundle ~3 ms a result; inflating
 * was 30% of a search's CPU on the npm corpus with every body compressed). With this cap the same
 * searches cost what they cost on uncompressed text, and the corpus index is 1.93× its source
 * (1.71× with no cap, 2.01× at 64 KiB; bench/README.md "Issue 19: a leaner index").
 */
export const MAX_PACK_BYTES = 128 * 1024;
/** Deflate level 1: 4.2× smaller on the npm corpus, at a third of level 6's CPU for 15% more bytes. */
const PACK_LEVEL = 1;

/** The body to store for a file's UTF-8 text: deflated when it is 256 B–128 KiB and that saves at least a tenth. */
export function packBody(utf8: Buffer): { body: Buffer; codec: ContentCodec } {
  if (utf8.byteLength < MIN_PACK_BYTES || utf8.byteLength > MAX_PACK_BYTES) return { body: utf8, codec: 0 };
  const packed = deflateRawSync(utf8, { level: PACK_LEVEL });
  return packed.byteLength <= utf8.byteLength * 0.9 ? { body: packed, codec: 1 } : { body: utf8, codec: 0 };
}

/** The UTF-8 text of a stored body. */
export function unpackBody(body: Buffer, codec: number): Buffer {
  return codec === 1 ? inflateRawSync(body) : body;
}

/** True when `text` holds `needle`'s bytes; with `ignoreAsciiCase`, A–Z and a–z compare equal (SQL LIKE's rule). */
export function holdsBytes(text: Buffer, needle: Buffer, ignoreAsciiCase: boolean): boolean {
  return ignoreAsciiCase ? asciiLower(text).includes(asciiLower(needle)) : text.includes(needle);
}

function asciiLower(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  for (let i = 0; i < out.length; i++) {
    const b = out[i]!;
    if (b >= 65 && b <= 90) out[i] = b + 32;
  }
  return out;
}
