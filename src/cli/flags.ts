import { EngineError } from '../index.js';

/** An optional integer flag from 1 to `max`; anything else is a usage error naming the flag. */
export function parseIntFlag(raw: string | undefined, name: string, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new EngineError('INVALID_ARGUMENT', { name, reason: `"${raw}" is not an integer from 1 to ${max}` });
  return n;
}

/** Whether a command was asked for collections (`--collection`, `--all`) rather than the project alone. */
export const wantsCollections = (t: { readonly names?: readonly string[] | undefined; readonly all?: boolean | undefined }): boolean => t.all === true || (t.names !== undefined && t.names.length > 0);
