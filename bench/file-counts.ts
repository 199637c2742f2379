/**
 * Long-query file scoring's counts (issue 19): for each long query of bench/queries.ts, the FTS5
 * expressions of its walked groups are taken from one real search, then counted both ways, in
 * alternating rounds on one connection: the reference join (`SearchRepo.fileMatchCounts`, per
 * group) and the FTS rowids against the in-memory chunk→file map (`fileMatchCountsMany`, map
 * built at once), and the first use of a data version: the rowids against a map of only the
 * chunks they name (`ChunkFiles.loadFor`, issue 19 longcpu). Checks that the rows are equal,
 * reports the CPU of each and of building the map.
 *
 *   npx tsx bench/file-counts.ts --db PATH [--rounds 10]
 *
 * Writes bench/results/file-counts.json.
 */
import { existsSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { createEngine } from '../src/index.js';
import { ChunkFiles } from '../src/store/chunk-files.js';
import { openConnection } from '../src/store/driver.js';
import { SearchRepo } from '../src/store/search-repo.js';
import { benchQueries } from './queries.js';
import { environment, parseArgs, writeResult } from './results.js';
import { median, round2 } from './stats.js';

const cpuMs = (fn: () => unknown): number => {
  const c0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
};

/** The expressions file scoring walks for each long query, read off one search through the engine. */
async function expressionsOf(db: string): Promise<Array<{ kind: string; expressions: string[] }>> {
  const seen: string[][] = [];
  const proto = SearchRepo.prototype as unknown as { fileMatchCountsMany: (m: readonly string[], o?: unknown) => unknown };
  const original = proto.fileMatchCountsMany;
  proto.fileMatchCountsMany = function (this: SearchRepo, matches, options) {
    seen.push([...matches]);
    return original.call(this, matches, options);
  };
  const engine = await createEngine({ db });
  try {
    const out = [];
    for (const q of benchQueries().filter((x) => x.kind === 'issue' || x.kind === 'stacktrace')) {
      seen.length = 0;
      await engine.search(q.text, { limit: 10 });
      out.push({ kind: q.kind, expressions: seen.flat() });
    }
    return out;
  } finally {
    proto.fileMatchCountsMany = original;
    engine.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const db = values.get('db') ?? process.env.SCRY_BENCH_DB;
  if (!db || !existsSync(db)) throw new Error('pass --db PATH (an index of the corpus)');
  const rounds = Number(values.get('rounds') ?? 10);
  const queries = await expressionsOf(db);
  const conn = openConnection(db, { readonly: true });
  const repo = new SearchRepo(conn);
  const build = [0, 1, 2].map(() => round2(cpuMs(() => ChunkFiles.load(conn))));
  const rows = queries.map(({ kind, expressions }) => {
    const reference = () => expressions.map((e) => repo.fileMatchCounts(e).map((r) => ({ ...r })));
    const fast = () => repo.fileMatchCountsMany(expressions, { build: 'now', cached: false });
    const rowids = conn.prepare<[string], { ids: string | null }>('SELECT group_concat(rowid) AS ids FROM chunks_fts WHERE chunks_fts MATCH ?');
    const first = () => {
      const lists = expressions.map((e) => rowids.get(e)?.ids ?? null);
      const part = ChunkFiles.loadFor(conn, lists)!;
      return lists.map((l) => part.countByFile(l));
    };
    const same = isDeepStrictEqual(reference(), fast()) && isDeepStrictEqual(reference(), first());
    const ref: number[] = [];
    const map: number[] = [];
    const part: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // rotating which goes first, so that load drift hits all three
      const order = [reference, fast, first].map((_, i, all) => all[(i + r) % 3]!);
      for (const f of order) (f === reference ? ref : f === fast ? map : part).push(cpuMs(f));
    }
    const row = { kind, groups: expressions.length, same, referenceMs: round2(median(ref)), mapMs: round2(median(map)), firstUseMs: round2(median(part)) };
    console.log(
      `${kind.padEnd(10)} ${String(row.groups).padStart(3)} groups  same rows: ${same}  reference ${row.referenceMs} ms  map ${row.mapMs} ms  (${round2(row.mapMs / row.referenceMs)}×)  first use ${row.firstUseMs} ms (${round2(row.firstUseMs / row.referenceMs)}×)`,
    );
    return row;
  });
  console.log(`building the map (ChunkFiles.load), CPU: ${build.join(' / ')} ms`);
  conn.close();
  writeResult('file-counts', { env: environment(), db, rounds, build, rows });
  if (rows.some((r) => !r.same)) process.exitCode = 1;
}

await main();
