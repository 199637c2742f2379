import type { IndexStore } from '../store/index-store.js';

/** Meta key of the redaction log: content hash → rule id → literals redacted. */
const REDACTIONS_KEY = 'redactions';

type RedactionLog = Record<string, Readonly<Record<string, number>>>;

/** A stored file whose token literals were redacted, and by which rules. */
export interface RedactedFile {
  readonly path: string;
  /** Rule id → literals redacted. */
  readonly rules: Readonly<Record<string, number>>;
}

/**
 * Records what this pass redacted. Keyed by content hash, so that a file whose rows are copied
 * from another with the same content (or left unchanged) keeps its entry; entries of contents
 * parsed again without redactions, or no longer stored, are dropped. Call inside a transaction.
 */
export function updateRedactionLog(store: IndexStore, parsed: ReadonlyMap<string, Readonly<Record<string, number>>>): void {
  const log: RedactionLog = { ...(store.meta.getJson<RedactionLog>(REDACTIONS_KEY) ?? {}) };
  for (const [hash, rules] of parsed) {
    if (Object.keys(rules).length > 0) log[hash] = rules;
    else delete log[hash];
  }
  for (const hash of Object.keys(log)) if (!store.files.isHashUsed(hash)) delete log[hash];
  store.meta.setJson(REDACTIONS_KEY, log);
}

/** The stored files with redacted literals, by path. */
export function redactedFiles(store: IndexStore): RedactedFile[] {
  const log = store.meta.getJson<RedactionLog>(REDACTIONS_KEY) ?? {};
  const hashes = Object.keys(log);
  if (hashes.length === 0) return [];
  return store.files.pathsByHash(hashes).map((f) => ({ path: f.path, rules: log[f.hash]! }));
}
