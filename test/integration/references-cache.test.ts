/**
 * The kinds of a name's occurrences kept across calls (an engine's UsesCache): a name looked up
 * again in the same content is answered from it, and an edited file, whose content hash changed,
 * is parsed again instead of answered from a stale entry.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { nameCandidates } from '../../src/search/name-occurrences.js';
import { findReferences } from '../../src/search/references.js';
import { UsesCache } from '../../src/search/uses-cache.js';
import { IndexStore } from '../../src/store/index-store.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const kinds = (r: Awaited<ReturnType<typeof findReferences>>): string[] => r.files.flatMap((g) => g.references.map((x) => `${g.path} ${x.line}:${x.column} ${x.kind}`));

describe('references: identifier kinds kept across calls', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    db = join(t.dir, 'index.db');
    writeTree(root, { 'a.ts': 'export function greet(): void {}\n', 'b.ts': "import { greet } from './a.js';\ngreet();\n" });
  });
  afterAll(() => t.cleanup());

  it('a repeated name is answered from the cache; an edited file is parsed again', async () => {
    const index = async (): Promise<void> => {
      const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
      await engine.index();
      engine.close();
    };
    await index();
    const cache = new UsesCache();
    let store = IndexStore.open(db, { create: false });
    const first = await findReferences(store, 'greet', 50, { cache });
    expect(kinds(first)).toEqual(['a.ts 1:17 definition', 'b.ts 2:1 call', 'b.ts 1:10 import']);
    // what the cache holds is what it answers with: a planted kind comes back
    const b = nameCandidates(store, 'greet').files.find((f) => f.path === 'b.ts')!;
    expect(cache.get(b.hash, b.language, 'greet')).toEqual(new Map([[9, 'import'], [32, 'call']]));
    cache.set(b.hash, b.language, 'greet', new Map([[9, 'import'], [32, 'reference']]));
    expect(kinds(await findReferences(store, 'greet', 50, { cache }))).toEqual(['a.ts 1:17 definition', 'b.ts 1:10 import', 'b.ts 2:1 reference']);
    store.close();
    // an edit changes the content hash: the planted entry no longer applies
    writeFileSync(join(root, 'b.ts'), "import { greet } from './a.js';\n\ngreet();\n");
    await index();
    store = IndexStore.open(db, { create: false });
    try {
      expect(kinds(await findReferences(store, 'greet', 50, { cache }))).toEqual(['a.ts 1:17 definition', 'b.ts 3:1 call', 'b.ts 1:10 import']);
    } finally {
      store.close();
    }
    // through the engine: the same answers twice
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    try {
      const once = await engine.references('greet');
      expect(await engine.references('greet')).toEqual(once);
    } finally {
      engine.close();
    }
  });
});
