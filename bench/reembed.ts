/**
 * A candidate built-in model on the development benchmark without touching the shared caches
 * (issue 18, the model lever): copies the index databases a run-devset selection reads from a
 * cache root to a new root of the same layout (bench/reembed-plan.ts) and replaces every vector in
 * each copy with the candidate's (bench/reembed-db.ts: the engine's own embedding pass over the
 * stored chunk texts). Doc-comment indexes get their `tree` as a link to the source's tree, whose
 * real path each index records as its root. A log of what was done (`reembed.jsonl` in the new
 * root, one line per database) makes a stopped run resume: a database logged for this model is
 * not done again.
 *
 *   npx tsx bench/reembed.ts --model DIR --to ROOT [--from ROOT] [--sets devset,nl,large] [--kinds commit,issue,doc]
 *                            [--split tune|held-out|all] [--only owner/name,...] [--mirrors DIR] [--plan] [--verify]
 *   npx tsx bench/reembed.ts --verify-only --to ROOT [selection as above]
 *
 * `--from`: the cache root read (default: the one this checkout's bench/.devset-cache,
 * .nlslice-cache and .largeset-cache links point at). `--plan`: list the databases and their bytes,
 * copy nothing. `--verify`: after each copy, compare its vectors with the source's byte for byte
 * (the identity check, with the source's own model as `--model`); `--verify-only`: that comparison
 * for every planned database already copied under ROOT, per set.
 * The benchmark then runs from a checkout whose models/builtin is the candidate and whose three
 * links point at ROOT (bench/model-candidate.ts sets one up); see bench/README.md "A candidate model".
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBuiltinModel } from '../src/embed/builtin/model.js';
import { fingerprintKey } from '../src/embed/provider.js';
import { KINDS, type QueryKind } from './devset-report.js';
import { compareVectors, isCurrentIndex, peekIndex, reembedDatabase, removeVectorSnapshot, type ReembedReport, type VectorDiff } from './reembed-db.js';
import { CACHE_LINKS, cacheRootOf, planDatabases, type PlannedDb, type PlanOptions } from './reembed-plan.js';

export interface ReembedOptions extends PlanOptions {
  readonly model: string;
  readonly from: string;
  readonly to: string;
  readonly verify: boolean;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

/** One line of `reembed.jsonl`. */
interface LogLine extends ReembedReport {
  readonly rel: string;
  readonly bytes: number;
  readonly at: string;
  readonly loadAvg1m: number;
  readonly verify?: VectorDiff | undefined;
}

export const LOG_FILE = 'reembed.jsonl';

const fileBytes = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

/** The databases already re-embedded for `model` under `to`, by path under the root. */
function doneFor(to: string, model: string): Set<string> {
  const file = join(to, LOG_FILE);
  if (!existsSync(file)) return new Set();
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  return new Set(lines.map((l) => JSON.parse(l) as LogLine).filter((l) => l.model === model && existsSync(join(to, l.rel))).map((l) => l.rel));
}

/** Copies the database (and a write-ahead log holding committed pages) over whatever was at `dest`. */
function copyDatabase(src: string, dest: string): void {
  mkdirSync(dirname(dest), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${dest}${suffix}`, { force: true });
  removeVectorSnapshot(dest);
  copyFileSync(src, dest);
  if (fileBytes(`${src}-wal`) > 0) copyFileSync(`${src}-wal`, `${dest}-wal`);
}

/** A doc-comment index's tree: a link to the source's, so the copy's recorded root (a real path) is the same. */
function linkTree(from: string, to: string, db: PlannedDb): void {
  if (!db.tree) return;
  const dest = join(to, db.tree);
  const target = realpathSync(join(from, db.tree));
  if (existsSync(dest) && realpathSync(dest) === target) return;
  rmSync(dest, { recursive: true, force: true });
  symlinkSync(target, dest);
  const stamp = join(dirname(join(from, db.tree)), 'tree.commit');
  if (existsSync(stamp)) copyFileSync(stamp, join(dirname(dest), 'tree.commit'));
}

/** Copies and re-embeds every planned database not yet done; returns the lines logged by this run. */
export async function reembedCaches(o: ReembedOptions, plan: readonly PlannedDb[]): Promise<LogLine[]> {
  const model = await loadBuiltinModel(o.model);
  const key = fingerprintKey({ provider: 'builtin', model: model.name, dimensions: model.dimensions, version: model.version });
  mkdirSync(o.to, { recursive: true });
  const done = doneFor(o.to, key);
  const out: LogLine[] = [];
  for (const [i, db] of plan.entries()) {
    const src = join(o.from, db.rel);
    const dest = join(o.to, db.rel);
    if (done.has(db.rel)) continue;
    if (!existsSync(src)) {
      o.log(`skip ${db.rel}: not in ${o.from} (run-devset would build it from the mirror)`);
      continue;
    }
    const id = peekIndex(src);
    if (!isCurrentIndex(id)) {
      o.log(`skip ${db.rel}: schema ${id.schema}, feature version ${String(id.featureVersion)} is not current (run-devset would rebuild it)`);
      continue;
    }
    copyDatabase(src, dest);
    linkTree(o.from, o.to, db);
    const report = await reembedDatabase(dest, o.model);
    if (report.model !== key) throw new Error(`${dest}: re-embedded as ${report.model}, expected ${key}`);
    const verify = o.verify ? compareVectors(src, dest) : undefined;
    const line: LogLine = { rel: db.rel, bytes: fileBytes(dest), ...report, at: new Date().toISOString(), loadAvg1m: loadavg()[0] ?? 0, verify };
    appendFileSync(join(o.to, LOG_FILE), `${JSON.stringify(line)}\n`);
    out.push(line);
    const v = verify ? ` verify ${verify.same}/${verify.chunks} same, ${verify.differ} differ, ${verify.missing} missing` : '';
    o.log(`${i + 1}/${plan.length} ${db.rel}: ${report.embedded} texts, ${report.cpuMs} ms CPU, ${report.wallMs} ms${v}`);
  }
  return out;
}

/** Each planned database copied under `to` compared with its source, byte for byte, per set. */
export function verifyCopies(from: string, to: string, plan: readonly PlannedDb[]): Map<string, VectorDiff & { dbs: number }> {
  const out = new Map<string, VectorDiff & { dbs: number }>();
  for (const db of plan) {
    if (!existsSync(join(to, db.rel)) || !existsSync(join(from, db.rel))) continue;
    const d = compareVectors(join(from, db.rel), join(to, db.rel));
    const s = out.get(db.set) ?? { dbs: 0, chunks: 0, same: 0, differ: 0, missing: 0, models: d.models };
    out.set(db.set, { dbs: s.dbs + 1, chunks: s.chunks + d.chunks, same: s.same + d.same, differ: s.differ + d.differ, missing: s.missing + d.missing, models: d.models });
  }
  return out;
}

function formatVerify(sums: ReadonlyMap<string, VectorDiff & { dbs: number }>): string {
  return [...sums].map(([set, s]) => `${set.padEnd(16)}${String(s.dbs).padStart(5)} dbs ${s.same} of ${s.chunks} vectors byte-identical (${((100 * s.same) / Math.max(1, s.chunks)).toFixed(2)}%), ${s.differ} differ, ${s.missing} missing; ${s.models.join(' vs ')}`).join('\n');
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The options of the command line (shared with bench/model-candidate.ts). */
export function planOptionsFromArgs(): PlanOptions {
  const kinds = (arg('--kinds')?.split(',') ?? KINDS) as QueryKind[];
  for (const k of kinds) if (!KINDS.includes(k)) throw new Error(`unknown kind ${k}; known: ${KINDS.join(', ')}`);
  const split = (arg('--split') ?? 'all') as PlanOptions['split'];
  if (!['tune', 'held-out', 'all'].includes(split)) throw new Error(`--split must be tune, held-out or all`);
  return { sets: (arg('--sets') ?? 'devset,nl').split(','), kinds, split, only: arg('--only')?.split(','), mirrors: arg('--mirrors') ?? '/work/.mirror' };
}

/** The plan's databases and bytes per set and half. */
export function formatPlan(from: string, plan: readonly PlannedDb[]): string {
  const sums = new Map<string, { dbs: number; bytes: number; queries: number }>();
  for (const db of plan) {
    const k = `${db.set} ${db.split}`;
    const s = sums.get(k) ?? { dbs: 0, bytes: 0, queries: 0 };
    sums.set(k, { dbs: s.dbs + 1, bytes: s.bytes + fileBytes(join(from, db.rel)), queries: s.queries + db.queries });
  }
  const gb = (b: number): string => (b / 1e9).toFixed(2);
  const rows = [...sums].map(([k, s]) => `${k.padEnd(26)}${String(s.dbs).padStart(6)} dbs${gb(s.bytes).padStart(8)} GB${String(s.queries).padStart(7)} queries`);
  const total = [...sums.values()].reduce((a, s) => a + s.bytes, 0);
  return [...rows, `${'total'.padEnd(26)}${String(plan.length).padStart(6)} dbs${gb(total).padStart(8)} GB`].join('\n');
}

async function main(): Promise<void> {
  const po = planOptionsFromArgs();
  const from = arg('--from') ?? cacheRootOf(CACHE_LINKS, realpathSync);
  const plan = planDatabases(po);
  process.stdout.write(`${formatPlan(from, plan)}\n`);
  if (process.argv.includes('--plan')) return;
  const to = arg('--to');
  if (process.argv.includes('--verify-only')) {
    if (!to) throw new Error('--verify-only needs --to ROOT');
    process.stdout.write(`${formatVerify(verifyCopies(from, to, plan))}\n`);
    return;
  }
  const model = arg('--model');
  if (!model || !to) throw new Error('--model DIR and --to ROOT are required (or --plan)');
  if (realpathSync(from) === (existsSync(to) ? realpathSync(to) : to)) throw new Error('--to must not be the cache root read');
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const lines = await reembedCaches({ ...po, model, from, to, verify: process.argv.includes('--verify'), log: (l) => process.stderr.write(`${l}\n`) }, plan);
  const cpu = process.cpuUsage(c0);
  const bytes = lines.reduce((a, l) => a + l.bytes, 0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const wallS = (performance.now() - t0) / 1000;
  process.stdout.write(`re-embedded ${lines.length} dbs, ${(bytes / 1e9).toFixed(2)} GB, ${lines.reduce((a, l) => a + l.embedded, 0)} texts: ${cpuS.toFixed(1)} s CPU, ${wallS.toFixed(1)} s wall (${(cpuS / Math.max(bytes / 1e9, 1e-9)).toFixed(1)} s CPU per GB), load ${loadavg().map((x) => x.toFixed(1)).join(' ')}\n`);
  const verified = lines.filter((l) => l.verify);
  if (verified.length > 0) {
    const sum = (f: (d: VectorDiff) => number): number => verified.reduce((a, l) => a + f(l.verify!), 0);
    process.stdout.write(`verify: ${sum((d) => d.same)} of ${sum((d) => d.chunks)} vectors byte-identical, ${sum((d) => d.differ)} differ, ${sum((d) => d.missing)} missing\n`);
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
