/**
 * `related` looks the subject's top-level definitions up by name in the FTS index; a definition
 * named by a string (TypeScript `declare module "node:fs"`) must not break the FTS query (it
 * failed with SQLite's `no such column: node` before its quotes were escaped).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

describe('related: definitions named by a string', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  beforeAll(() => {
    t = tempDir();
    root = join(t.dir, 'repo');
    writeTree(root, {
      'types/fs.d.ts': 'declare module "node:fs" {\n  export function readThing(path: string): string;\n}\nexport function helperThing(): void;\n',
      'src/use.ts': "import { helperThing } from '../types/fs';\nhelperThing();\n// node:fs\n",
    });
  });
  afterAll(() => t.cleanup());

  it('answers, with the callers of the identifiers among them', async () => {
    const engine = await createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir) });
    try {
      await engine.index();
      const symbols = await engine.symbols('node:fs');
      expect(symbols.some((s) => s.name.includes('"'))).toBe(true);
      const related = await engine.related('types/fs.d.ts');
      expect(related.files.map((f) => [f.path, f.relations.callers])).toEqual([['src/use.ts', ['helperThing']]]);
    } finally {
      engine.close();
    }
  });
});
