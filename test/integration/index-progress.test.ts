import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type IndexProgress } from '../../src/index.js';
import { SCAN_PROGRESS_EVERY } from '../../src/indexer/progress.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

/**
 * Issue 24: the bar sat at `0% · ETA 0s` while the tree was walked, then moved in 500-file steps
 * (one event per written batch). Now the walk reports the files found so far, and the index phase
 * reports every file as it is prepared, inline (small passes) and on worker threads (large ones).
 */
async function indexEvents(root: string, dir: string): Promise<IndexProgress[]> {
  const events: IndexProgress[] = [];
  const engine = await createEngine({ root, env: isolatedEnv(dir) });
  try {
    await engine.index({ onProgress: (e) => void events.push(e) });
  } finally {
    engine.close();
  }
  return events;
}

function docs(count: number, bytes: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`docs/d${Math.floor(i / 50)}/note-${i}.md`] = `# Note ${i}\n\n${`word${i} `.repeat(Math.ceil(bytes / 8))}\n`.slice(0, bytes);
  return files;
}

describe('index progress: the walk, then file by file', () => {
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => void (t = tempDir('scry-progress-')));
  afterAll(() => t.cleanup());

  it('a small pass (inline): files found while walking, then one step per file', async () => {
    const root = join(t.dir, 'small');
    writeTree(root, docs(450, 300));
    const events = await indexEvents(root, join(t.dir, 'small-env'));
    const scans = events.filter((e) => e.phase === 'scan').map((e) => e.filesDone);
    expect(scans).toEqual([0, SCAN_PROGRESS_EVERY, 2 * SCAN_PROGRESS_EVERY]);
    const firstIndex = events.findIndex((e) => e.phase === 'index');
    expect(events.slice(0, firstIndex).every((e) => e.phase === 'scan')).toBe(true);
    const done = events.filter((e) => e.phase === 'index').map((e) => e.filesDone);
    expect(done).toEqual(Array.from({ length: 451 }, (_, i) => i));
    expect(events.filter((e) => e.phase === 'index').every((e) => e.filesTotal === 450)).toBe(true);
  });

  it('a large pass (worker threads): still one step per file, never beyond the total', async () => {
    // 600 files of 8 KB: over the 4 MB worker threshold, and two batches (500 + 100)
    const root = join(t.dir, 'large');
    writeTree(root, docs(600, 8 * 1024));
    const events = await indexEvents(root, join(t.dir, 'large-env'));
    const index = events.filter((e) => e.phase === 'index');
    expect(index.map((e) => e.filesDone)).toEqual(Array.from({ length: 601 }, (_, i) => i));
    const last = index.at(-1)!;
    expect(last.bytesDone).toBe(last.bytesTotal);
  });
});
