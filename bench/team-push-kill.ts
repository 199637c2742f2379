/**
 * Pushes killed with SIGKILL at random moments (issue 23): each round changes a file of the
 * repository, starts `scry push` as a child process, kills it after a random delay within the
 * measured length of a whole push, then checks that the server still serves a whole revision:
 * the previous one (same revision id, same results) unless the push had committed first.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from './stats.js';

export interface KillOptions {
  readonly cliArgs: readonly string[];
  readonly server: string;
  readonly token: string;
  /** A writable copy of a repository (each round appends to a file in it). */
  readonly dir: string;
  readonly db: string;
  readonly rounds: number;
  readonly env: Record<string, string>;
  readonly seed: number;
}

export interface KillReport {
  readonly rounds: number;
  /** Pushes killed before their commit after which the previous revision was still served, results unchanged. */
  readonly previousServed: number;
  /** Rounds whose push finished before the kill (the new revision is served: also whole). */
  readonly completed: number;
  /** Rounds where neither held: must be 0. */
  readonly broken: number;
  readonly delaysMs: readonly number[];
  /** Wall time of an unkilled incremental `scry push` (process start-up included). */
  readonly incrementalPushMs: number;
}

interface Served {
  readonly revision: number;
  readonly results: string;
}

async function served(opts: KillOptions, repo: string): Promise<Served> {
  const res = await fetch(`${opts.server}/api/search?${new URLSearchParams({ q: 'function module export', k: '10', repo }).toString()}`, { headers: { authorization: `Bearer ${opts.token}` } });
  const body = (await res.json()) as { results: { path: string; startLine: number; score: number }[]; meta: { repos: { revision: number }[] } };
  return { revision: body.meta.repos[0]!.revision, results: JSON.stringify(body.results.map((r) => [r.path, r.startLine, r.score])) };
}

function pushChild(opts: KillOptions, repo: string): ReturnType<typeof spawn> {
  return spawn(process.execPath, [...opts.cliArgs, 'push', opts.dir, '--db', opts.db, '--server', opts.server, '--repo', repo, '--batch-kb', '64', '--json'], { env: { PATH: process.env.PATH ?? '', ...opts.env, SCRY_TOKEN: opts.token }, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** One whole (unkilled) push of the current tree; its wall time. */
async function wholePush(opts: KillOptions, repo: string): Promise<number> {
  const t0 = performance.now();
  const child = pushChild(opts, repo);
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`a push of ${repo} failed (exit ${code})`);
  return performance.now() - t0;
}

/**
 * Kills pushes until `rounds` of them died before their commit (at most 3 × rounds attempts): a
 * push that finishes before its random moment counts as `completed` and another attempt follows.
 */
export async function killedPushes(opts: KillOptions): Promise<KillReport> {
  const repo = 'kill-target';
  const random = prng(opts.seed);
  await wholePush(opts, repo); // the first revision (a full local index)
  appendFileSync(join(opts.dir, 'package.json'), `\n`);
  // how long an incremental push takes, start-up included: the kill moments are drawn within it
  const wholeMs = await wholePush(opts, repo);
  let previousServed = 0;
  let completed = 0;
  let broken = 0;
  const delaysMs: number[] = [];
  for (let attempt = 0; previousServed + broken < opts.rounds && attempt < 3 * opts.rounds; attempt++) {
    const before = await served(opts, repo);
    appendFileSync(join(opts.dir, 'package.json'), `\n`); // a change: the next revision differs
    const delay = Math.round(random() * wholeMs);
    delaysMs.push(delay);
    const child = pushChild(opts, repo);
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const timer = setTimeout(() => child.kill('SIGKILL'), delay);
    const [exitCode, signal] = await exited;
    clearTimeout(timer);
    const after = await served(opts, repo);
    if (signal === 'SIGKILL' && after.revision === before.revision && after.results === before.results) previousServed++;
    else if (after.revision > before.revision && (exitCode === 0 || signal === 'SIGKILL')) completed++; // finished (or committed) before the kill: also a whole revision
    else broken++;
  }
  return { rounds: opts.rounds, previousServed, completed, broken, delaysMs, incrementalPushMs: Math.round(wholeMs) };
}
