import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createEngine, EngineError } from '../../index.js';
import { parseQueriesFile } from '../../eval/queries-file.js';
import { runEval } from '../../eval/run-eval.js';
import { formatEval } from '../format-eval.js';
import type { CliIO } from '../io.js';
import { progressBar } from '../progress-bar.js';

export interface EvalFlags {
  db?: string;
  queries?: string;
  json?: boolean;
}

/** `scry eval --queries FILE`: scores the index of DIR on a hand-written query set. */
export async function evalCommand(io: CliIO, dir: string | undefined, flags: EvalFlags): Promise<number> {
  if (!flags.queries) throw new EngineError('INVALID_ARGUMENT', { name: '--queries', reason: 'a JSONL file of {"query", "expected": [{"path", "startLine"?, "endLine"?}]} is required' });
  const file = resolve(io.cwd, flags.queries);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new EngineError('INVALID_ARGUMENT', { name: '--queries', reason: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
  }
  const queries = parseQueriesFile(text, flags.queries);
  const engine = await createEngine({ root: dir ?? (flags.db ? undefined : io.cwd), db: flags.db });
  try {
    if (!engine.isIndexed()) {
      if (!flags.json) io.err(`scry: no index yet for ${engine.root}; building it first...\n`);
      const bar = await progressBar(io);
      await engine.index({ onProgress: bar.onProgress });
      bar.stop();
    }
    const report = await runEval(engine, queries);
    io.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatEval(report));
    return 0;
  } finally {
    engine.close();
  }
}
