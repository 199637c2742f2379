/**
 * Reference search over the multi-language golden inputs (test/golden/parse/), against a golden
 * recorded from the implementation that parsed every candidate file at query time (before
 * identifier uses were stored, feature version 4): for 347 names (every defined name and every
 * seventh other identifier), each occurrence's path, line, column and kind. Since schema 11 the
 * index stores no identifier uses again: every candidate file is parsed at query time, and must
 * give exactly the golden (which the stored uses of schemas 7–10 gave too).
 * Regenerate (only for an intended change) with SCRY_UPDATE_GOLDEN=1.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openConnection } from '../../src/store/driver.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { unpackBody } from '../../src/store/content-codec.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { IndexStore } from '../../src/store/index-store.js';
import { findReferences } from '../../src/search/references.js';
import { holdingText, nameCandidates } from '../../src/search/name-occurrences.js';
import { ParsedFiles } from '../../src/search/parsed-files.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const INPUTS = fileURLToPath(new URL('../golden/parse/', import.meta.url));
const GOLDEN = fileURLToPath(new URL('../golden/references/parse-inputs.golden.json', import.meta.url));

type Golden = Record<string, { total: number; refs: string[] }>;

async function compact(engine: Engine, name: string): Promise<{ total: number; refs: string[]; parsed: number }> {
  const r = await engine.references(name, { limit: 5000 });
  return { total: r.total, refs: r.files.flatMap((g) => g.references.map((x) => `${g.path} ${x.line}:${x.column} ${x.kind}`)), parsed: r.parsed };
}

describe('references: identifier uses parsed at query time, against the golden', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let db: string;
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;

  beforeAll(async () => {
    t = tempDir();
    root = join(t.dir, 'repo');
    for (const f of readdirSync(INPUTS)) if (!f.endsWith('.golden.json') && !f.startsWith('.')) cpSync(join(INPUTS, f), join(root, f));
    db = join(t.dir, 'index.db');
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    await engine.index();
    engine.close();
  });
  afterAll(() => t.cleanup());

  it('every name: the same occurrences and kinds, from the candidate files parsed at query time', async () => {
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    try {
      if (process.env.SCRY_UPDATE_GOLDEN) {
        const out: Golden = {};
        for (const name of Object.keys(golden)) out[name] = await compact(engine, name).then(({ total, refs }) => ({ total, refs }));
        writeFileSync(GOLDEN, `${JSON.stringify(out, null, 0)}\n`);
      }
      expect(Object.keys(golden).length).toBeGreaterThan(300);
      const kinds = new Set<string>();
      for (const [name, want] of Object.entries(golden)) {
        const got = await compact(engine, name);
        expect({ name, total: got.total, refs: got.refs }).toEqual({ name, ...want });
        // every file with an identifier occurrence was parsed (a candidate may hold none: stemming, a longer word)
        const classified = new Set(got.refs.filter((r) => !r.endsWith(' text')).map((r) => r.split(' ')[0])).size;
        expect(got.parsed).toBeGreaterThanOrEqual(classified);
        for (const r of got.refs) kinds.add(r.slice(r.lastIndexOf(' ') + 1));
      }
      // the golden exercises every kind
      expect([...kinds].sort()).toEqual(['call', 'definition', 'import', 'reference', 'text']);
      // a limit of exactly the total is not truncated (files matched by stem only are read, not counted); one less is
      for (const [name, want] of Object.entries(golden).filter(([, w]) => w.total >= 3 && new Set(w.refs.map((r) => r.split(' ')[0])).size >= 2).slice(0, 20)) {
        expect((await engine.references(name, { limit: want.total })).truncated).toBe(false);
        const cut = await engine.references(name, { limit: want.total - 1 });
        expect({ name, truncated: cut.truncated, total: cut.total, parseCapped: cut.parseCapped }).toEqual({ name, truncated: true, total: want.total - 1, parseCapped: undefined });
      }
    } finally {
      engine.close();
    }
  });

  it('parsed by windows wherever they check out (windowMinChars 0): the same golden, with fewer characters parsed', async () => {
    const store = IndexStore.open(db, { create: false });
    try {
      for (const [name, want] of Object.entries(golden)) {
        const r = await findReferences(store, name, 5000, { windowMinChars: 0 });
        expect({ name, total: r.total, refs: r.files.flatMap((g) => g.references.map((x) => `${g.path} ${x.line}:${x.column} ${x.kind}`)) }).toEqual({ name, ...want });
      }
      // per file and name, the windows give the whole file's kinds from part of its text
      let compared = 0;
      let [windowChars, wholeChars] = [0, 0];
      for (const name of Object.keys(golden).filter((_, i) => i % 3 === 0)) {
        for (const file of nameCandidates(store, name).files) {
          const text = holdingText(store, file, name);
          if (text === undefined) continue;
          const byWindows = new ParsedFiles(store, { windowMinChars: 0 });
          const whole = new ParsedFiles(store, { windowMinChars: Infinity });
          try {
            const want = await whole.uses(file, name, text);
            expect({ name, path: file.path, uses: await byWindows.uses(file, name, text) }).toEqual({ name, path: file.path, uses: want });
            if (want) compared++;
            windowChars += byWindows.parsedChars;
            wholeChars += whole.parsedChars;
          } finally {
            byWindows.close();
            whole.close();
          }
        }
      }
      expect(compared).toBeGreaterThan(100);
      // 644K of 980K characters on these small files (windows that do not check out cost a whole parse on top)
      expect(windowChars).toBeLessThan(wholeChars * 0.75);
    } finally {
      store.close();
    }
  });

  it('an index of schema 10 (stored identifier uses, uncompressed text) is upgraded in place: the rows dropped, nothing re-chunked or rewritten, the same references', async () => {
    const raw = openConnection(db);
    // stored text as schema 10 wrote it: not compressed, no codec or filter column
    const rows = raw.prepare<[], { id: number; body: Uint8Array; codec: number }>('SELECT id, body, codec FROM content').all();
    const update = raw.prepare<[Buffer, number]>('UPDATE content SET body = ?, codec = 0 WHERE id = ?');
    for (const r of rows) update.run(unpackBody(Buffer.from(r.body), r.codec), r.id);
    expect(rows.some((r) => r.codec === 1)).toBe(true);
    raw.exec('ALTER TABLE content DROP COLUMN codec; ALTER TABLE content DROP COLUMN grams');
    // the table as migration 7 made it, with rows that contradict the golden: they must not be read
    raw.exec(MIGRATIONS.find((m) => m.version === 7)!.sql);
    raw.prepare("INSERT INTO name_uses(file_id, name, uses) SELECT id, '', '' FROM files").run();
    raw.prepare("INSERT INTO name_uses(file_id, name, uses) SELECT id, 'Inventory', '0d' FROM files").run();
    raw.pragma('user_version = 10');
    const chunksBefore = raw.prepare('SELECT count(*) AS n FROM chunks').get();
    raw.close();
    const engine = await createEngine({ root, db, env: isolatedEnv(t.dir) });
    try {
      expect(engine.status()).toMatchObject({ schemaVersion: 12, featureVersionCurrent: true });
      const check = openConnection(db, { readonly: true });
      expect(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'name_uses%'").get()).toEqual({ n: 0 });
      // the old bodies are read as they are (codec 0), not rewritten
      expect(check.prepare('SELECT count(*) AS n FROM content WHERE codec <> 0').get()).toEqual({ n: 0 });
      expect(check.prepare('SELECT count(*) AS n FROM chunks').get()).toEqual(chunksBefore);
      check.close();
      for (const name of ['Inventory', ...Object.keys(golden).filter((_, i) => i % 7 === 0)]) {
        const got = await compact(engine, name);
        expect({ name, total: got.total, refs: got.refs }).toEqual({ name, ...golden[name] });
      }
      // nothing to re-index: the upgrade kept every file's feature version
      expect((await engine.index()).filesIndexed).toBe(0);
    } finally {
      engine.close();
    }
  });
});
