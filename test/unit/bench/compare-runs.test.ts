import { describe, expect, it } from 'vitest';
import { formatPairedSummary, pairedCell, pairRuns } from '../../../bench/compare-runs.js';
import type { DevRow } from '../../../bench/devset-report.js';
import { devRow } from '../../helpers/dev-row.js';

// bench/compare-runs.ts: two saved run-devset runs paired query by query (repository, id, group).

const row = (repo: string, id: string, hit: boolean, over: Partial<DevRow> = {}): DevRow => devRow(hit, { id, repo, ...over });
const acc5 = (r: DevRow): number => (r.accAt[5] ? 1 : 0);

describe('pairRuns', () => {
  it('pairs by group, repository and id whatever the order, and counts the queries of one run only', () => {
    const ref = [row('a/x', '1', true), row('a/x', '2', false), row('b/y', '1', false), row('a/x', '1', false, { group: 'large' })];
    const cand = [row('b/y', '1', true), row('a/x', '1', true, { group: 'large' }), row('a/x', '2', true), row('c/z', '9', true)];
    const p = pairRuns(ref, cand);
    expect(p.ref.map((r) => `${r.group ?? ''}${r.repo}#${r.id}`)).toEqual(['a/x#2', 'b/y#1', 'largea/x#1']);
    expect(p.cand.map((r) => `${r.group ?? ''}${r.repo}#${r.id}`)).toEqual(['a/x#2', 'b/y#1', 'largea/x#1']);
    expect([p.onlyRef, p.onlyCand]).toEqual([1, 1]);
  });
});

describe('pairedCell', () => {
  it('says better only when the interval excludes 0, WORSE for the mirror image, and nothing for identical runs', () => {
    const n = 40;
    const miss = Array.from({ length: n }, (_, i) => row('a/x', String(i), false));
    const hit = Array.from({ length: n }, (_, i) => row('a/x', String(i), true));
    expect(pairedCell(miss, hit, acc5)).toBe('0.000→1.000 +1.000 [+1.000,+1.000] better');
    expect(pairedCell(hit, miss, acc5)).toBe('1.000→0.000 -1.000 [-1.000,-1.000] WORSE');
    expect(pairedCell(hit, hit, acc5)).toBe('1.000→1.000 +0.000 [+0.000,+0.000]');
    // one query of 40 changed: within noise
    const one = hit.map((r, i) => (i === 0 ? row('a/x', '0', false) : r));
    expect(pairedCell(hit, one, acc5)).toMatch(/^1\.000→0\.975 -0\.025 \[-0\.075,\+0\.000\]$/);
  });

  it('leaves out queries without function spans from fn@10', () => {
    const ref = [row('a/x', '1', true, { functionHitAt: null }), row('a/x', '2', false)];
    const cand = [row('a/x', '1', false, { functionHitAt: null }), row('a/x', '2', true)];
    expect(pairedCell(ref, cand, (r) => (r.functionHitAt ? (r.functionHitAt[10] ? 1 : 0) : undefined))).toMatch(/^0\.000→1\.000 \+1\.000/);
  });
});

describe('formatPairedSummary', () => {
  it('has one line per group, half and kind present', () => {
    const ref = [row('a/x', '1', true), row('a/x', '2', true, { kind: 'commit' }), row('b/y', '1', false, { group: 'large', split: 'held-out', kind: 'issue' })];
    const text = formatPairedSummary(ref, ref, ['v4', 'v5']);
    expect(text.split('\n').slice(2).map((l) => l.slice(0, 30).trim())).toEqual(['devset tune commit', 'devset tune doc', 'large repositories held-out is']);
  });
});
