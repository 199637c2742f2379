/**
 * The answers of a set of searches as JSON lines, timings left out: run it in two trees on copies
 * of one index and `cmp` the outputs to show a speed change left every result byte-identical.
 *
 *   npx tsx bench/search-json.ts --db PATH > new.jsonl   (and the same in a scratch worktree of the base)
 *
 * The queries: bench/queries.ts (every kind) and 25 natural-language questions, each plain and
 * with `explain`, limit 10 (issue 19, natlat).
 */
import { createEngine } from '../src/index.js';
import { benchQueries } from './queries.js';
import { parseArgs } from './results.js';

const QUESTIONS = [
  'how to debounce a function', 'escape html entities in a string', 'check whether a value is a plain object', 'compare two semver versions',
  'format bytes as human readable size', 'merge two objects recursively', 'generate a random uuid', 'watch files for changes and rebuild',
  'validate an email address', 'create a readable stream from a buffer', 'Returns the primary key of an entity', 'get the current working directory',
  'serialize the collection items to json', 'where are webpack loaders resolved', 'throttle events in an observable',
];

/** A response without what varies run to run (milliseconds). */
function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !/Ms$/.test(k) && k !== 'timing').map(([k, v]) => [k, withoutTimings(v)]));
}

const { values } = parseArgs(process.argv.slice(2));
const db = values.get('db');
if (!db) throw new Error('--db PATH is required');
const engine = await createEngine({ db });
const queries = [...new Set([...QUESTIONS, ...benchQueries().map((q) => q.text)])];
for (const explain of [false, true]) {
  for (const q of queries) process.stdout.write(`${JSON.stringify(withoutTimings(await engine.search(q, { limit: 10, explain })))}\n`);
}
engine.close();
