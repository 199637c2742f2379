import { describe, expect, it } from 'vitest';
import { cacheRootOf } from '../../../bench/reembed-plan.js';

// bench/reembed-plan.ts: the cache root a checkout reads is the common parent of its three links' targets.

const links = { devset: '/co/bench/.devset-cache', nlslice: '/co/bench/.nlslice-cache', largeset: '/co/bench/.largeset-cache' };

describe('cacheRootOf', () => {
  it('is the parent of the three real folders when they share it', () => {
    const real: Record<string, string> = { [links.devset]: '/team/devcache/devset', [links.nlslice]: '/team/devcache/nlslice', [links.largeset]: '/team/devcache/largeset' };
    expect(cacheRootOf(links, (p) => real[p]!)).toBe('/team/devcache');
  });

  it('refuses links into different roots (asks for --from)', () => {
    const real: Record<string, string> = { [links.devset]: '/team/devcache/devset', [links.nlslice]: '/team/devcache-v5/nlslice', [links.largeset]: '/team/devcache/largeset' };
    expect(() => cacheRootOf(links, (p) => real[p]!)).toThrow(/--from/);
  });
});
