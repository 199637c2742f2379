/**
 * A writer process for the snapshot test: for generation 1..COUNT, rewrites every file so that its
 * text holds `gen_<g>` (and nothing of the generation before), runs an index pass (one write
 * transaction for these few files: files, chunks, content and FTS change together), then prints
 * `<g>\n`. Exits 0 after the last one.
 * Usage: generation-writer.ts ROOT DB FILES COUNT
 */
import { createEngine } from '../../src/index.js';
import { writeGenerationFiles } from './generations.js';

const [root, db, files, count] = process.argv.slice(2) as [string, string, string, string];
const engine = await createEngine({ root, db, env: { SCRY_CACHE_DIR: `${db}.cache` } });
for (let g = 1; g <= Number(count); g++) {
  writeGenerationFiles(root, g, Number(files));
  await engine.index({ paths: undefined });
  process.stdout.write(`${g}\n`);
}
engine.close();
