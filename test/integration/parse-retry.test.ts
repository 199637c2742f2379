/**
 * A file whose parse the wall-clock guard stopped is indexed by line windows and parsed again on
 * the next pass although its content is unchanged; and an index written at an older
 * INDEX_FEATURE_VERSION (3) is re-chunked. Real passes over a real SQLite index: the parse guard
 * gets a fake clock (never real time).
 */
import { openConnection } from '../../src/store/driver.js';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger, type Clock } from '../../src/core/logger.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { INDEX_FEATURE_VERSION, RETRY_FEATURE_VERSION } from '../../src/indexer/feature-version.js';
import { runIndexPass } from '../../src/indexer/index-pass.js';
import type { IndexReport } from '../../src/indexer/index-report.js';
import { IndexStore } from '../../src/store/index-store.js';
import { backdate } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const FILES: Record<string, string> = {
  'src/shapes.ts': Array.from({ length: 30 }, (_, i) => `export function area${i}(w: number, h: number): number {\n  return w * h + ${i};\n}\n`).join('\n'),
  'src/util.py': 'def shout(text):\n    return text.upper()\n\n\nclass Greeter:\n    def hello(self, name):\n        return f"hello {name}"\n',
  'README.md': '# Shapes\n\nAreas of rectangles.\n',
};

interface Row {
  path: string;
  parser: string;
  fallback: string | null;
  feature_version: number;
}

let dir: string;
let cleanup: () => void;
let dbPath: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeTree(join(dir, 'repo'), FILES);
  // well before "now": the stat check alone may then call a file unchanged
  backdate(join(dir, 'repo'), Object.keys(FILES));
  dbPath = join(dir, 'index.db');
});
afterEach(() => cleanup());

async function pass(parseClock?: Clock, warnings: string[] = []): Promise<IndexReport> {
  const root = join(dir, 'repo');
  const config = await resolveConfig({ root, db: dbPath, env: isolatedEnv(dir) });
  const store = IndexStore.open(dbPath, { create: true });
  try {
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    return await runIndexPass({ root: config.root!, config, store, clock: { now: () => Date.now() }, logger, parseClock });
  } finally {
    store.close();
  }
}

function rows(): { files: Row[]; symbols: number; chunks: Array<{ path: string; kind: string }> } {
  const db = openConnection(dbPath, { readonly: true });
  try {
    return {
      files: db.prepare('SELECT path, parser, fallback, feature_version FROM files ORDER BY path').all() as Row[],
      symbols: (db.prepare('SELECT count(*) AS n FROM symbols').get() as { n: number }).n,
      chunks: db.prepare('SELECT f.path, c.kind FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ordinal').all() as Array<{ path: string; kind: string }>,
    };
  } finally {
    db.close();
  }
}

describe('parse retry', () => {
  it('a file stopped by the wall-clock guard is re-parsed on the next pass, then left alone', async () => {
    let t = 0;
    // every reading of this clock is 4 s later: a parse (and its query) is stopped at its eighth progress report
    const hanging: Clock = { now: () => (t += 4_000) };
    const warnings: string[] = [];
    const first = await pass(hanging, warnings);
    expect(first.filesIndexed).toBe(3);
    expect(warnings).toEqual(['typescript: chunked by line windows (parse_timeout; parsed again on the next pass)']);
    const stopped = rows();
    expect(stopped.files).toEqual([
      { path: 'README.md', parser: 'markdown', fallback: null, feature_version: INDEX_FEATURE_VERSION },
      { path: 'src/shapes.ts', parser: 'window', fallback: 'parse_timeout', feature_version: RETRY_FEATURE_VERSION },
      { path: 'src/util.py', parser: 'tree-sitter', fallback: null, feature_version: INDEX_FEATURE_VERSION },
    ]);
    expect(stopped.chunks.filter((c) => c.path === 'src/shapes.ts').every((c) => c.kind === 'window')).toBe(true);

    const second = await pass();
    expect(second).toMatchObject({ filesIndexed: 1, filesUnchanged: 2 });
    const retried = rows();
    expect(retried.files.find((f) => f.path === 'src/shapes.ts')).toEqual({ path: 'src/shapes.ts', parser: 'tree-sitter', fallback: null, feature_version: INDEX_FEATURE_VERSION });
    expect(retried.symbols).toBeGreaterThan(stopped.symbols + 29);
    expect(retried.chunks.some((c) => c.path === 'src/shapes.ts' && c.kind === 'function')).toBe(true);

    const third = await pass();
    expect(third).toMatchObject({ filesIndexed: 0, filesUnchanged: 3 });
  });

  it('a file over the work budget is not retried: that decision is the file\'s own', async () => {
    await pass();
    const db = openConnection(dbPath);
    // what a parse_budget fallback looks like once written: the current version, so left alone
    db.prepare("UPDATE files SET parser = 'window', fallback = 'parse_budget' WHERE path = 'src/shapes.ts'").run();
    db.close();
    expect(await pass()).toMatchObject({ filesIndexed: 0, filesUnchanged: 3 });
    expect(rows().files.find((f) => f.path === 'src/shapes.ts')).toMatchObject({ fallback: 'parse_budget', feature_version: INDEX_FEATURE_VERSION });
  });

  it('an index written at feature version 3 is re-chunked by the next pass', async () => {
    expect(INDEX_FEATURE_VERSION).toBeGreaterThan(3);
    await pass();
    const current = rows();
    const db = openConnection(dbPath);
    // an index as version 3 left it: rows of version 3, and one stale chunk kind to be replaced
    db.exec("UPDATE files SET feature_version = 3; UPDATE meta SET value = '3' WHERE key = 'feature_version'; UPDATE chunks SET kind = 'stale'");
    db.close();
    const report = await pass();
    expect(report).toMatchObject({ filesIndexed: 3, filesUnchanged: 0 });
    expect(rows()).toEqual(current);
    expect(await pass()).toMatchObject({ filesIndexed: 0, filesUnchanged: 3 });
  });
});
