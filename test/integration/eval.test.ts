/**
 * `scry eval --queries` end to end on the small fixture repository: a real index, real searches,
 * scores that follow from where the expected files rank.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { tempDir } from '../helpers/temp.js';

describe('scry eval --queries', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;

  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    writeSmallRepo(root);
    db = join(t.dir, 'index.db');
    writeFileSync(
      join(t.dir, 'q.jsonl'),
      [
        // named after the function: the file ranks first, and the chunk holding lines 4-9 is a top result
        JSON.stringify({ id: 'open-db', query: 'openDatabase', expected: [{ path: 'src/db/open-database.ts', startLine: 4, endLine: 9 }] }),
        JSON.stringify({ id: 'retry', query: 'retry flaky http call with backoff', expected: [{ path: 'src/http/retry_policy.py' }] }),
        // no file of the repository answers this: a miss everywhere
        JSON.stringify({ id: 'absent', query: 'kubernetes helm chart', expected: [{ path: 'deploy/chart.yaml' }] }),
      ].join('\n'),
    );
    writeFileSync(join(t.dir, 'bad.jsonl'), '{"query": "x", "expected": [{"path": "a.ts"}]}\n{"query": 3}\n');
  });
  afterAll(() => t.cleanup());

  it('indexes when needed, then reports Acc@k, MRR, function hit and latency as JSON', async () => {
    const r = await runCli(['eval', root, '--db', db, '--queries', 'q.jsonl', '--json'], { cwd: t.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    const s = report.modes.lexical;
    expect(s.queries).toBe(3);
    // two of three queries find their file first
    expect(s.accAt).toEqual({ 1: 0.667, 5: 0.667, 10: 0.667 });
    expect(s.mrr).toBe(0.667);
    // only open-db has a line span, and it is hit by the first result
    expect(s.functionQueries).toBe(1);
    expect(s.functionHitAt).toEqual({ 1: 1, 5: 1, 10: 1 });
    expect(s.latencyMs.p90).toBeGreaterThanOrEqual(s.latencyMs.p50);
    const absent = report.queries.find((q: { id: string }) => q.id === 'absent');
    expect(absent).toMatchObject({ firstFileRank: null, reciprocalRank: 0, expected: ['deploy/chart.yaml'] });
  });

  it('prints a table and lists the misses for people', async () => {
    const r = await runCli(['eval', root, '--db', db, '--queries', 'q.jsonl'], { cwd: t.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mode\s+Acc@1\s+Acc@5\s+Acc@10\s+MRR@10/m);
    expect(r.stdout).toMatch(/^lexical\s+0\.667\s+0\.667\s+0\.667\s+0\.667\s+1\.000/m);
    expect(r.stdout).toContain('absent: "kubernetes helm chart" expected deploy/chart.yaml');
  });

  it('a bad query file or none is a usage error naming the line', async () => {
    const bad = await runCli(['eval', root, '--db', db, '--queries', 'bad.jsonl', '--json'], { cwd: t.dir });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(bad.stderr).toContain('bad.jsonl:2');
    const missing = await runCli(['eval', root, '--db', db], { cwd: t.dir });
    expect(missing.code).toBe(2);
    const unreadable = await runCli(['eval', root, '--db', db, '--queries', 'nope.jsonl'], { cwd: t.dir });
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('ENOENT');
  });
});
