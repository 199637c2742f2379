/**
 * A per-file Bloom filter of byte trigrams (schema 12, `content.grams`), so that a scan for a
 * literal can rule out a compressed body without inflating it. Trigrams are taken over the UTF-8
 * bytes with ASCII letters lowercased, so one filter serves case-sensitive and ASCII-case-insensitive
 * searches alike (a match of either kind has all of the lowercased needle's trigrams). A filter
 * never rules out a body that holds the needle; it lets through some that do not.
 */

/** Filter bits per byte of text (rounded up to a power of two, at least MIN_BITS). */
const BITS_PER_BYTE = 1;
const MIN_BITS = 1024;
const MAX_BITS = 1 << 23;

const lower = (b: number): number => (b >= 65 && b <= 90 ? b + 32 : b);

/** Two bit positions of a trigram (a 24-bit key) in a filter of `mask + 1` bits. */
function positions(key: number, mask: number): [number, number] {
  const h1 = Math.imul(key, 0x9e3779b1) >>> 0;
  const h2 = Math.imul(key ^ (key >>> 11), 0x85ebca77) >>> 0;
  return [(h1 >>> 7) & mask, (h2 >>> 5) & mask];
}

/** The filter of a body's text. */
export function gramFilter(utf8: Uint8Array): Buffer {
  let bits = MIN_BITS;
  while (bits < utf8.length * BITS_PER_BYTE && bits < MAX_BITS) bits *= 2;
  const out = Buffer.alloc(bits / 8);
  const mask = bits - 1;
  if (utf8.length < 3) return out;
  let key = (lower(utf8[0]!) << 8) | lower(utf8[1]!);
  for (let i = 2; i < utf8.length; i++) {
    key = ((key << 8) | lower(utf8[i]!)) & 0xffffff;
    const [a, b] = positions(key, mask);
    out[a >>> 3]! |= 1 << (a & 7);
    out[b >>> 3]! |= 1 << (b & 7);
  }
  return out;
}

/** False only when the text the filter was made from cannot contain `needle` (in either case of ASCII letters). */
export function mayHold(filter: Uint8Array, needle: Uint8Array): boolean {
  if (needle.length < 3 || filter.length === 0) return true;
  const mask = filter.length * 8 - 1;
  let key = (lower(needle[0]!) << 8) | lower(needle[1]!);
  for (let i = 2; i < needle.length; i++) {
    key = ((key << 8) | lower(needle[i]!)) & 0xffffff;
    const [a, b] = positions(key, mask);
    if ((filter[a >>> 3]! & (1 << (a & 7))) === 0 || (filter[b >>> 3]! & (1 << (b & 7))) === 0) return false;
  }
  return true;
}
