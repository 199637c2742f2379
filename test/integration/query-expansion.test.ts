/**
 * Query expansion end to end (issue 17): a real index (SQLite FTS5, tree-sitter) and the real
 * shipped table (models/expand/). A natural-language query finds a chunk holding none of its
 * words but a token the table associates with one ("remove" → clear), says so in `--explain` and
 * `meta.expansion`; identifier queries and `expansion: 0` are untouched; a damaged table is refused
 * with MODEL_INVALID, a missing one with MODEL_NOT_FOUND.
 */
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineError } from '../../src/core/errors.js';
import { defaultExpansionDir, loadExpansionTable } from '../../src/engine/expansion-model.js';
import { createEngine, type ConfigInput, type Engine } from '../../src/index.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

/** Lexical search (`embed.provider` none: expansion is a lexical feature) with expansion weight `w`. */
const withExpansion = (w: number): ConfigInput => ({ embed: { provider: 'none' }, search: { ranking: { expansion: w } } }) as ConfigInput;

describe('query expansion', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  const open = (config: ConfigInput): Promise<Engine> => createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir), config });

  beforeAll(async () => {
    t = tempDir('scry-expand-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root, {
      'src/cache.ts': 'export function dropStale(cache: Map<string, number>) {\n  cache.clear();\n}\n',
      'src/store.ts': '// expired sessions are kept here until the sweeper runs\nexport const sessions = new Map<string, number>();\n',
    });
    const engine = await open(withExpansion(0));
    await engine.index();
    engine.close();
  });
  afterAll(() => t.cleanup());

  it('finds what only an associated code token matches, and explains it', async () => {
    const query = 'remove all expired sessions';
    const off = await open(withExpansion(0));
    const on = await open(withExpansion(1));
    try {
      const before = await off.search(query, { limit: 10 });
      expect(before.meta.queryKind).toBe('natural');
      expect(before.meta.expansion).toBeUndefined();
      expect(before.results.map((r) => r.path)).not.toContain('src/cache.ts');
      const after = await on.search(query, { limit: 10, explain: true });
      expect(after.meta.expansion?.weight).toBe(1);
      expect(after.meta.expansion?.terms).toContainEqual({ term: 'clear', from: 'remove' });
      const hit = after.results.find((r) => r.path === 'src/cache.ts');
      expect(hit).toBeDefined();
      expect(hit!.why?.join('\n')).toMatch(/of which expansion [\d.]+ \(.*remove→clear.*× 1\)/);
      // the chunk that matches the query's own words still comes first
      expect(after.results[0]!.path).toBe('src/store.ts');
    } finally {
      off.close();
      on.close();
    }
  });

  it('answers a question none of whose words the index holds by the associated tokens alone', async () => {
    const query = 'remove every zorblat';
    const off = await open(withExpansion(0));
    const on = await open(withExpansion(0.3));
    try {
      const before = await off.search(query, { limit: 5 });
      expect(before.results).toEqual([]);
      expect(before.meta.droppedTerms.map((d) => d.reason)).toEqual(['not_in_index', 'not_in_index', 'not_in_index']);
      const after = await on.search(query, { limit: 5, explain: true });
      expect(after.meta.terms).toEqual([]);
      expect(after.results[0]!.path).toBe('src/cache.ts');
      expect(after.results[0]!.why?.join('\n')).toMatch(/remove→clear/);
    } finally {
      off.close();
      on.close();
    }
  });

  it('leaves identifier and path queries alone', async () => {
    const on = await open(withExpansion(1));
    try {
      for (const [query, kind] of [['removeSessions', 'identifier'], ['src/store.ts', 'path']] as const) {
        const r = await on.search(query, { limit: 5 });
        expect(r.meta.queryKind).toBe(kind);
        expect(r.meta.expansion).toBeUndefined();
      }
    } finally {
      on.close();
    }
  });

  it('loads the shipped table, and refuses a damaged or missing one', () => {
    const table = loadExpansionTable();
    expect(table.terms.get('remove')?.map((x) => x.term)).toContain('clear');
    const dir = join(t.dir, 'expand-copy');
    cpSync(defaultExpansionDir(), dir, { recursive: true });
    writeFileSync(join(dir, 'terms.tsv'), 'remove\tdel:1\n');
    expect(() => loadExpansionTable(dir)).toThrow(expect.objectContaining({ code: 'MODEL_INVALID' }) as EngineError);
    rmSync(join(dir, 'terms.tsv'));
    expect(() => loadExpansionTable(dir)).toThrow(expect.objectContaining({ code: 'MODEL_NOT_FOUND' }) as EngineError);
  });
});
