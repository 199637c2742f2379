import type { PushReport } from '../../serve/push-client.js';
import { checkPushTarget, pushLocalIndex } from '../../serve/serve-main.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { parseIntFlag } from '../flags.js';

export interface PushFlags {
  db?: string;
  server?: string;
  repo?: string;
  token?: string;
  batchKb?: string;
  json?: boolean;
}

function formatPush(r: PushReport, seconds: number): string {
  const mb = r.sent.bytes / 1e6;
  return (
    `pushed ${r.repo} revision ${r.revision}${r.previous !== null ? ` (replaces ${r.previous})` : ''}: ${r.files} files, ${r.chunks} chunks\n` +
    `  sent ${r.sent.contents} file bodies and ${r.sent.chunks} postings (${mb.toFixed(2)} MB in ${r.sent.requests} requests, ${seconds.toFixed(1)} s); ` +
    `the server already had ${r.skipped.contents} bodies and ${r.skipped.chunks} postings\n`
  );
}

/**
 * `scry push [DIR] --server URL --repo NAME`: brings the local index of DIR up to date (an
 * incremental pass), then sends it to the team server as one new revision of NAME.
 */
export async function pushCommand(io: CliIO, dir: string | undefined, flags: PushFlags): Promise<number> {
  const batchKb = parseIntFlag(flags.batchKb, '--batch-kb', 262_144);
  // a push that cannot be sent fails before the local pass
  const target = { server: flags.server ?? '', repo: flags.repo ?? '', token: flags.token };
  checkPushTarget(target);
  const engine = await openEngine(io, { dir, db: flags.db, orCwd: true });
  let dbPath: string;
  try {
    const report = await engine.index({});
    if (!flags.json) io.err(`scry: indexed ${engine.root}: ${report.filesIndexed} new or changed, ${report.filesUnchanged} unchanged\n`);
    dbPath = engine.dbPath;
  } finally {
    engine.close();
  }
  const started = Date.now();
  const pushed = await pushLocalIndex({
    dbPath,
    ...target,
    batchBytes: batchKb !== undefined ? batchKb * 1024 : undefined,
  });
  io.out(flags.json ? `${JSON.stringify(pushed, null, 2)}\n` : formatPush(pushed, (Date.now() - started) / 1000));
  return 0;
}
