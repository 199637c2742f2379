/**
 * Pushes killed with SIGKILL at random moments (issue 23): each round changes a file of the
 * repository, starts `scry push` as a child process, kills it a random delay after its local pass
 * ended (within the measured length of an incremental push's network phase), then checks that the server still serves a whole revision:
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
  /** Wall time of the network phase (after the local pass) of an unkilled incremental `scry push`. */
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

/** `scry push` as a child; `indexed` resolves when it reports its local pass done (the network phase starts). */
function pushChild(opts: KillOptions, repo: string): { child: ReturnType<typeof spawn>; indexed: Promise<void> } {
  const child = spawn(process.execPath, [...opts.cliArgs, 'push', opts.dir, '--db', opts.db, '--server', opts.server, '--repo', repo, '--batch-kb', '64'], { env: { PATH: process.env.PATH ?? '', ...opts.env, SCRY_TOKEN: opts.token }, stdio: ['ignore', 'ignore', 'pipe'] });
  const indexed = new Promise<void>((resolve) => {
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('scry: indexed ')) resolve();
    });
  });
  return { child, indexed };
}

/** One whole (unkilled) push of the current tree: the wall time of its network phase (after the local pass). */
async function wholePush(opts: KillOptions, repo: string): Promise<number> {
  const { child, indexed } = pushChild(opts, repo);
  let t0 = performance.now();
  void indexed.then(() => (t0 = performance.now()));
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
  // how long the network phase of an incremental push takes: the kill moments are drawn within it
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
    const { child, indexed } = pushChild(opts, repo);
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let timer: NodeJS.Timeout | undefined;
    // the moment is drawn within the network phase: from the end of the local pass to the commit
    void indexed.then(() => (timer = setTimeout(() => child.kill('SIGKILL'), delay)));
    const [exitCode, signal] = await exited;
    clearTimeout(timer);
    const after = await served(opts, repo);
    if (signal === 'SIGKILL' && after.revision === before.revision && after.results === before.results) previousServed++;
    else if (after.revision > before.revision && (exitCode === 0 || signal === 'SIGKILL')) completed++; // finished (or committed) before the kill: also a whole revision
    else broken++;
  }
  return { rounds: opts.rounds, previousServed, completed, broken, delaysMs, incrementalPushMs: Math.round(wholeMs) };
}
