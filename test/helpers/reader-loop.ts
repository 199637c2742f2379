/**
 * A reader process for concurrency tests: opens the index and searches it in a loop until
 * `<stopFile>` exists, then prints one JSON line {queries, errors: [...]} and exits 0.
 * Usage: reader-loop.ts ROOT DB STOP_FILE QUERY
 */
import { existsSync } from 'node:fs';
import { createEngine } from '../../src/index.js';

const [root, db, stopFile, query] = process.argv.slice(2) as [string, string, string, string];
const engine = await createEngine({ root, db });
let queries = 0;
const errors: string[] = [];
while (!existsSync(stopFile)) {
  try {
    await engine.search(query, { limit: 5 });
    await engine.symbols(query.split(' ')[0]!, { limit: 5 });
    engine.freshness();
    queries++;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    // no index yet is expected before the writer's first pass; anything else is a failure
    if (e.code !== 'INDEX_NOT_FOUND') errors.push(`${e.code ?? 'no code'}: ${e.message}`);
  }
  await new Promise((r) => setTimeout(r, 5));
}
engine.close();
process.stdout.write(`${JSON.stringify({ queries, errors })}\n`);
