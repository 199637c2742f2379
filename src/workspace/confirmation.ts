import { randomBytes } from 'node:crypto';
import { EngineError } from '../core/errors.js';
import type { Clock } from '../core/logger.js';

/** How long a token lives unless the host asks otherwise (../shared/seeds §17.3: "e.g., 60 seconds"). */
export const DEFAULT_TOKEN_TTL_MS = 60_000;
/** The longest life a host may give a token: long enough for a human to read a diff, short enough to go stale. */
export const MAX_TOKEN_TTL_MS = 600_000;
/** Tokens are remembered this long after they expire, so a late or replayed one says why, not "unknown". */
const EXPIRED_MEMORY_MS = 600_000;

const TOKEN_RE = /^scry_ct_[0-9a-f]{32}$/;

/** Why a token was refused; stable strings, in `data.rejection` of TOKEN_INVALID. */
export type TokenRejection = 'unknown' | 'expired' | 'used' | 'hash_mismatch' | 'workspace_mismatch';

export interface MintOptions {
  /** Bind the token to one change: it then applies only the change whose hash this is. */
  readonly hash?: string | undefined;
  /** Life in milliseconds. Range 1–600,000; default 60,000. */
  readonly ttlMs?: number | undefined;
}

interface Entry {
  readonly root: string;
  readonly hash: string | undefined;
  readonly mintedAt: number;
  readonly expiresAt: number;
  usedAt?: number;
}

/**
 * Confirmation tokens of one engine (one workspace). Minted by the host through the library API,
 * never by a tool; single-use; expiring; bound to the workspace and optionally to a change hash.
 * Kept in memory only: a token does not survive the process that minted it.
 */
export class ConfirmationTokens {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly root: string,
    private readonly clock: Clock,
  ) {}

  /** A new token: `scry_ct_` and 32 random hex digits (128 bits). */
  mint(options: MintOptions = {}): string {
    const ttl = options.ttlMs ?? DEFAULT_TOKEN_TTL_MS;
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TOKEN_TTL_MS) throw new EngineError('INVALID_ARGUMENT', { name: 'ttlMs', reason: `must be an integer from 1 to ${MAX_TOKEN_TTL_MS}` });
    if (options.hash !== undefined && !/^[0-9a-f]{64}$/.test(options.hash)) throw new EngineError('INVALID_ARGUMENT', { name: 'hash', reason: 'must be a change hash (64 lowercase hex digits, from proposeChange)' });
    const now = this.clock.now();
    this.prune(now);
    const token = `scry_ct_${randomBytes(16).toString('hex')}`;
    this.entries.set(token, { root: this.root, hash: options.hash, mintedAt: now, expiresAt: now + ttl });
    return token;
  }

  /**
   * Throws TOKEN_INVALID unless `token` may apply the change `hash` in `root`; writes nothing.
   * A refused token stays as it was (a token bound to another change can still apply that one).
   */
  check(token: string, change: { readonly root: string; readonly hash: string }): void {
    const now = this.clock.now();
    const entry = typeof token === 'string' && TOKEN_RE.test(token) ? this.entries.get(token) : undefined;
    if (!entry) throw rejected('unknown', 'unknown token (tokens come from the host, engine.mintConfirmationToken, and are valid only in the engine that minted them)');
    if (entry.usedAt !== undefined) throw rejected('used', 'the token was already used (tokens are single-use)');
    if (now >= entry.expiresAt) throw rejected('expired', `the token expired ${Math.round((now - entry.expiresAt) / 1000)} s ago (it lived ${Math.round((entry.expiresAt - entry.mintedAt) / 1000)} s)`);
    if (entry.root !== change.root) throw rejected('workspace_mismatch', 'the token was minted for another workspace');
    if (entry.hash !== undefined && entry.hash !== change.hash) throw rejected('hash_mismatch', `the token is bound to change ${entry.hash.slice(0, 12)}…, not to this change (${change.hash.slice(0, 12)}…)`);
  }

  /** `check`, then marks the token used. Call it only right before the change is applied. */
  consume(token: string, change: { readonly root: string; readonly hash: string }): void {
    this.check(token, change);
    this.entries.get(token)!.usedAt = this.clock.now();
  }

  /** Drops tokens long expired (the store stays as small as the host's minting rate). */
  private prune(now: number): void {
    for (const [token, e] of this.entries) {
      if (now >= e.expiresAt + EXPIRED_MEMORY_MS) this.entries.delete(token);
    }
  }
}

function rejected(rejection: TokenRejection, reason: string): EngineError {
  return new EngineError('TOKEN_INVALID', { reason, rejection });
}
