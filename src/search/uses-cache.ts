import type { UseKind } from '../core/symbol.js';

/** Identifier occurrences kept at most (summed over the entries; the least recently used entry goes first). */
const MAX_CACHED_USES = 200_000;

/**
 * The kinds of one name's occurrences per file content, kept across calls for an engine's
 * lifetime (an MCP session asks for references and related files many times, often of the same
 * names in the same files, and pages from limit 50 to 200). Keyed by content hash, language and
 * name: a file's kinds depend on nothing else (its definitions and imports come from the same
 * content), so an edit, which changes the hash, is never answered from here. Small: a few
 * numbers per occurrence, bounded by MAX_CACHED_USES.
 */
export class UsesCache {
  private readonly entries = new Map<string, ReadonlyMap<number, UseKind> | null>();
  private size = 0;

  constructor(private readonly maxUses = MAX_CACHED_USES) {}

  /** The kinds stored for `name` in this content; null when it has no grammar; undefined when not known. */
  get(hash: string, language: string, name: string): ReadonlyMap<number, UseKind> | null | undefined {
    const key = `${hash}\u0000${language}\u0000${name}`;
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  set(hash: string, language: string, name: string, uses: ReadonlyMap<number, UseKind> | null): void {
    const key = `${hash}\u0000${language}\u0000${name}`;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.size -= weight(old);
      this.entries.delete(key);
    }
    this.entries.set(key, uses);
    this.size += weight(uses);
    for (const [k, v] of this.entries) {
      if (this.size <= this.maxUses || this.entries.size <= 1) break;
      this.entries.delete(k);
      this.size -= weight(v);
    }
  }
}

const weight = (uses: ReadonlyMap<number, UseKind> | null): number => 1 + (uses?.size ?? 0);
