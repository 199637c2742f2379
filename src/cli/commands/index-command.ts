import { resolve } from 'node:path';
import { formatDryRun, formatIndexReport } from '../format.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { progressBar } from '../progress-bar.js';

export interface IndexFlags {
  db?: string;
  dryRun?: boolean;
  rebuild?: boolean;
  paths?: string[];
  json?: boolean;
}

export async function indexCommand(io: CliIO, dir: string | undefined, flags: IndexFlags): Promise<number> {
  const engine = await openEngine(io, { dir, db: flags.db, rebuild: flags.rebuild, orCwd: true });
  try {
    if (flags.dryRun) {
      const report = await engine.preview();
      io.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatDryRun(report));
      return 0;
    }
    const bar = await progressBar(io);
    let waited = false;
    try {
      const report = await engine.index({
        rebuild: flags.rebuild,
        // paths on the command line are relative to where the user is, not to the root
        paths: flags.paths?.map((p) => resolve(io.cwd, p)),
        onProgress: bar.onProgress,
        onHandoff: (owner) => {
          io.err(`scry: pid ${owner.pid} (${owner.role === 'watch' ? 'a watcher' : 'another scry index'}) writes this index; the pass runs there\n`);
        },
        onLockWait: (owner) => {
          if (!waited) io.err(`scry: waiting for pid ${owner.pid}, which is writing this index...\n`);
          waited = true;
        },
      });
      bar.stop();
      io.out(flags.json ? `${JSON.stringify({ root: engine.root, db: engine.dbPath, ...report }, null, 2)}\n` : formatIndexReport(report));
    } finally {
      bar.stop();
    }
    return 0;
  } finally {
    engine.close();
  }
}
