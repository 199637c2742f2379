import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { ConfirmationTokens, DEFAULT_TOKEN_TTL_MS, MAX_TOKEN_TTL_MS } from '../../../src/workspace/confirmation.js';

const H1 = 'a'.repeat(64);
const H2 = 'b'.repeat(64);

function rejection(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('TOKEN_INVALID');
    return String((err as EngineError).data.rejection);
  }
  throw new Error('expected TOKEN_INVALID');
}

describe('confirmation tokens', () => {
  const setup = () => {
    const clock = { t: 1_000_000, now() { return this.t; } };
    return { clock, tokens: new ConfirmationTokens('/repo', clock) };
  };

  it('mints random scry_ct_ tokens that apply once', () => {
    const { tokens } = setup();
    const a = tokens.mint();
    expect(a).toMatch(/^scry_ct_[0-9a-f]{32}$/);
    expect(tokens.mint()).not.toBe(a);
    tokens.check(a, { root: '/repo', hash: H1 }); // checking does not use it up
    tokens.consume(a, { root: '/repo', hash: H1 });
    expect(rejection(() => tokens.consume(a, { root: '/repo', hash: H1 }))).toBe('used');
  });

  it('expires after the ttl (60 s by default)', () => {
    const { clock, tokens } = setup();
    const a = tokens.mint();
    const b = tokens.mint({ ttlMs: 5_000 });
    clock.t += 5_000;
    expect(rejection(() => tokens.consume(b, { root: '/repo', hash: H1 }))).toBe('expired');
    clock.t += DEFAULT_TOKEN_TTL_MS - 5_001;
    tokens.consume(a, { root: '/repo', hash: H1 });
    const c = tokens.mint();
    clock.t += DEFAULT_TOKEN_TTL_MS;
    expect(rejection(() => tokens.check(c, { root: '/repo', hash: H1 }))).toBe('expired');
  });

  it('binds to a change hash when asked; a refused token stays usable for its own change', () => {
    const { tokens } = setup();
    const a = tokens.mint({ hash: H1 });
    expect(rejection(() => tokens.consume(a, { root: '/repo', hash: H2 }))).toBe('hash_mismatch');
    tokens.consume(a, { root: '/repo', hash: H1 });
  });

  it('is bound to its workspace and unknown anywhere else', () => {
    const { clock, tokens } = setup();
    const a = tokens.mint();
    expect(rejection(() => tokens.consume(a, { root: '/other', hash: H1 }))).toBe('workspace_mismatch');
    const elsewhere = new ConfirmationTokens('/repo', clock);
    expect(rejection(() => elsewhere.consume(a, { root: '/repo', hash: H1 }))).toBe('unknown');
    expect(rejection(() => tokens.consume('scry_ct_' + '0'.repeat(32), { root: '/repo', hash: H1 }))).toBe('unknown');
    expect(rejection(() => tokens.consume('not a token', { root: '/repo', hash: H1 }))).toBe('unknown');
  });

  it('validates mint options', () => {
    const { tokens } = setup();
    expect(() => tokens.mint({ ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => tokens.mint({ ttlMs: MAX_TOKEN_TTL_MS + 1 })).toThrow(/ttlMs/);
    expect(() => tokens.mint({ hash: 'abc' })).toThrow(/hash/);
  });

  it('forgets long-expired tokens as new ones are minted', () => {
    const { clock, tokens } = setup();
    const a = tokens.mint();
    clock.t += 24 * 3600_000;
    tokens.mint();
    expect(rejection(() => tokens.check(a, { root: '/repo', hash: H1 }))).toBe('unknown');
  });
});
