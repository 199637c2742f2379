import { isMap, parseDocument } from 'yaml';

/** Larger frontmatter is not metadata but a document; skipping it bounds parse time. */
const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Few enough alias expansions that a billion-laughs document throws instead of exploding. */
const MAX_ALIAS_COUNT = 20;
/** Deeper values (or cyclic ones, which YAML aliases can build) make the whole block invalid. */
const MAX_DEPTH = 32;

/**
 * Parses a markdown frontmatter block (the YAML between the `---` lines) into plain JSON values:
 * timestamps become ISO strings, non-finite numbers null, binary base64. Returns undefined when
 * the text is over 64 KB, is not valid YAML, is not a mapping, or nests deeper than 32 levels.
 * Never throws.
 */
export function parseFrontmatter(yamlText: string): Record<string, unknown> | undefined {
  if (yamlText.length > MAX_FRONTMATTER_BYTES || Buffer.byteLength(yamlText, 'utf8') > MAX_FRONTMATTER_BYTES) return undefined;
  try {
    // YAML 1.2 core keeps `yes`/`no` strings; the timestamp tag still gives dates (Jekyll, Hugo) a type
    const doc = parseDocument(yamlText, { prettyErrors: false, customTags: ['timestamp'] });
    if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined;
    const value = toPlain(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), 0);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function toPlain(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new RangeError('frontmatter nests too deep');
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value) || value instanceof Set) return [...(value as Iterable<unknown>)].map((v) => toPlain(v, depth + 1));
  // fromEntries defines own properties, so a `__proto__` key stays a key
  if (value instanceof Map) return Object.fromEntries([...(value as Map<unknown, unknown>)].map(([k, v]) => [String(k), toPlain(v, depth + 1)]));
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v, depth + 1)]));
  return null;
}
