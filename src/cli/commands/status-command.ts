import { formatStatus } from '../format.js';
import { formatFreshness } from '../format-freshness.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';

export interface StatusFlags {
  db?: string;
  root?: string;
  json?: boolean;
}

export async function statusCommand(io: CliIO, dir: string | undefined, flags: StatusFlags): Promise<number> {
  const engine = await openEngine(io, { dir: dir ?? flags.root, db: flags.db });
  try {
    const status = engine.status();
    const freshness = engine.freshness();
    io.out(flags.json ? `${JSON.stringify({ ...status, freshness }, null, 2)}\n` : formatStatus(status) + (status.indexed ? formatFreshness(freshness) : ''));
    return 0;
  } finally {
    engine.close();
  }
}
