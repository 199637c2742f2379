import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCH_REPOS, HELD_OUT, LARGE_REPOS } from '../../../bench/bench-repos.js';
import { SPLIT_FILE, splitManifest, type SplitManifest } from '../../../bench/freeze-split.js';

// The development benchmark's split is by repository and its held-out half is frozen: ranking is
// never tuned on it, and its queries never change without re-freezing bench/devset/split.json on
// purpose (npx tsx bench/freeze-split.ts).

const committed = JSON.parse(readFileSync(SPLIT_FILE, 'utf8')) as SplitManifest;

describe('development benchmark split (issue 18)', () => {
  it('splits by repository: each repository in exactly one half, none on the hidden held-out list', () => {
    const tune = new Set(committed.repos.tune);
    expect(committed.repos['held-out'].filter((r) => tune.has(r))).toEqual([]);
    expect(new Set(BENCH_REPOS.map((r) => r.repo)).size).toBe(BENCH_REPOS.length);
    expect(BENCH_REPOS.filter((r) => HELD_OUT.includes(r.repo.split('/')[1]!.toLowerCase()))).toEqual([]);
  });

  it('matches the repository list and the query files on disk (the held-out files by digest)', () => {
    const now = splitManifest();
    expect(now.repos).toEqual(committed.repos);
    expect(now.frozen).toEqual(committed.frozen);
    expect(now.queries).toEqual(committed.queries);
  });

  it('is as big and varied as issue 18 asks: 30+ repositories, 6+ languages, 1,000+ queries, every kind in both halves', () => {
    expect(committed.repos.tune.length + committed.repos['held-out'].length).toBeGreaterThanOrEqual(30);
    expect(new Set([...committed.languages.tune, ...committed.languages['held-out']]).size).toBeGreaterThanOrEqual(6);
    const total = Object.values(committed.queries).reduce((a, q) => a + q.commit + q.issue + q.doc, 0);
    expect(total).toBeGreaterThanOrEqual(1000);
    for (const half of Object.values(committed.queries)) for (const n of Object.values(half)) expect(n).toBeGreaterThanOrEqual(50);
    expect(Object.keys(committed.frozen).length).toBeGreaterThanOrEqual(committed.repos['held-out'].length);
  });

  it('keeps the large-repository group apart: its own split by repository, its held-out half frozen, both kinds in both halves', () => {
    const large = committed.large!;
    expect(splitManifest().large).toEqual(large);
    const tune = new Set(large.repos.tune);
    expect(large.repos['held-out'].filter((r) => tune.has(r))).toEqual([]);
    const proper = new Set(BENCH_REPOS.map((r) => r.repo));
    expect(LARGE_REPOS.filter((r) => proper.has(r.repo) || HELD_OUT.includes(r.repo.split('/')[1]!.toLowerCase()))).toEqual([]);
    for (const half of Object.values(large.queries)) for (const n of Object.values(half)) expect(n).toBeGreaterThanOrEqual(70);
    expect(Object.keys(large.frozen).length).toBe(large.repos['held-out'].length);
  });
});
