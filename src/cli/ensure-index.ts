import type { Engine } from '../index.js';
import { formatIndexReport } from './format.js';
import type { CliIO } from './io.js';
import { progressBar } from './progress-bar.js';

/**
 * Commands that read the index build it first when there is none, with a progress bar and the
 * report on stderr (quiet with --json, whose stdout must stay one JSON document).
 */
export async function ensureIndexed(io: CliIO, engine: Engine, json: boolean | undefined): Promise<void> {
  if (engine.isIndexed()) return;
  if (!json) io.err(`scry: no index yet for ${engine.root}; building it first...\n`);
  const bar = await progressBar(io);
  try {
    const report = await engine.index({ onProgress: bar.onProgress });
    if (!json) {
      bar.stop();
      io.err(formatIndexReport(report));
    }
  } finally {
    bar.stop();
  }
}
