import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageRank, type WeightedEdge } from '../../../src/context/page-rank.js';

const edge = (from: number, to: number, weight = 1): WeightedEdge => ({ from, to, weight });
const sum = (r: Float64Array): number => r.reduce((a, b) => a + b, 0);

describe('pageRank', () => {
  it('gives nothing for an empty graph and everything to a single node', () => {
    expect([...pageRank(0, [])]).toEqual([]);
    expect(pageRank(1, [])[0]).toBeCloseTo(1, 12);
  });

  it('is uniform on a graph without edges (every node dangling)', () => {
    const r = pageRank(4, []);
    for (const x of r) expect(x).toBeCloseTo(0.25, 12);
  });

  it('ranks the hub of a star first: four leaves import one file', () => {
    const r = pageRank(5, [edge(1, 0), edge(2, 0), edge(3, 0), edge(4, 0)]);
    expect(sum(r)).toBeCloseTo(1, 9);
    for (let i = 1; i < 5; i++) {
      expect(r[0]).toBeGreaterThan(r[i]! * 3);
      expect(r[i]).toBeCloseTo(r[1]!, 12); // the leaves are symmetric
    }
  });

  it('ranks a chain a → b → c increasingly toward its end', () => {
    const r = pageRank(3, [edge(0, 1), edge(1, 2)]);
    expect(r[0]).toBeLessThan(r[1]!);
    expect(r[1]).toBeLessThan(r[2]!);
    expect(sum(r)).toBeCloseTo(1, 9);
  });

  it('hands a dangling node\'s rank out by the personalisation (mass is kept)', () => {
    // 0 → 1, and 1 imports nothing: without redistribution the ranks would leak below 1
    const r = pageRank(3, [edge(0, 1)]);
    expect(sum(r)).toBeCloseTo(1, 9);
    expect(r[1]).toBeGreaterThan(r[0]!);
    expect(r[0]).toBeCloseTo(r[2]!, 12); // both only receive teleport and dangling mass
  });

  it('matches the closed form on two nodes pointing at each other', () => {
    const r = pageRank(2, [edge(0, 1), edge(1, 0)]);
    expect(r[0]).toBeCloseTo(0.5, 9);
    expect(r[1]).toBeCloseTo(0.5, 9);
  });

  it('splits rank by edge weight', () => {
    // 0 imports 1 three times as often as 2
    const r = pageRank(3, [edge(0, 1, 3), edge(0, 2, 1)]);
    expect(r[1]).toBeGreaterThan(r[2]!);
  });

  it('shifts rank toward personalised nodes and what they import', () => {
    // two separate chains: 0 → 1 and 2 → 3; personalise toward 2
    const edges = [edge(0, 1), edge(2, 3)];
    const plain = pageRank(4, edges);
    const focused = pageRank(4, edges, { personalization: [1, 1, 10, 1] });
    expect(plain[1]).toBeCloseTo(plain[3]!, 12);
    expect(focused[3]).toBeGreaterThan(focused[1]!);
    expect(focused[2]).toBeGreaterThan(plain[2]!);
    expect(sum(focused)).toBeCloseTo(1, 9);
  });

  it('treats an all-zero personalisation as uniform and ignores self-loops and non-positive weights', () => {
    const edges = [edge(0, 1), edge(1, 2)];
    expect([...pageRank(3, edges, { personalization: [0, 0, 0] })]).toEqual([...pageRank(3, edges)]);
    expect([...pageRank(3, [...edges, edge(2, 2), edge(0, 2, 0), edge(1, 0, -1)])]).toEqual([...pageRank(3, edges)]);
  });

  it('is deterministic and always sums to 1 on random graphs', () => {
    const graph = fc.integer({ min: 1, max: 30 }).chain((n) =>
      fc.tuple(fc.constant(n), fc.array(fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), weight: fc.integer({ min: 1, max: 5 }) }), { maxLength: 80 })),
    );
    fc.assert(
      fc.property(graph, ([n, edges]) => {
        const a = pageRank(n, edges);
        expect([...pageRank(n, edges)]).toEqual([...a]);
        expect(sum(a)).toBeCloseTo(1, 6);
        for (const x of a) expect(x).toBeGreaterThan(0);
      }),
      { numRuns: 200 },
    );
  });
});
