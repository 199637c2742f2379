import { createHash } from 'node:crypto';

/** Content hash used as the storage key of file text: sha256, hex. */
export function contentHash(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A short, stable id derived from a longer string (e.g. a project path). */
export function shortHash(data: string, length = 12): string {
  return contentHash(data).slice(0, length);
}
