/**
 * One command that makes a candidate built-in model measurable on the development benchmark
 * (issue 18, the model lever; bench/README.md "A candidate model"):
 *
 *   npx tsx bench/model-candidate.ts --model DIR --name NAME [--to ROOT] [--worktree DIR] [--sets devset,nl,large]
 *                                    [--kinds commit,issue,doc] [--split tune|held-out|all] [--only owner/name,...] [--from ROOT]
 *
 * 1. re-embeds the selected benchmark indexes with the model in DIR into ROOT (default
 *    /work/team/devcache-NAME; bench/reembed.ts, resumable);
 * 2. makes a checkout to run the benchmark from (default: a detached git worktree of this
 *    checkout's HEAD beside it, `<this checkout>-NAME`; an existing one is moved to that HEAD;
 *    commit bench/ changes first): its models/builtin holds the candidate's
 *    files (an uncommitted copy: the engine loads the built-in model from the checkout it runs
 *    from, so no configuration changes), node_modules links to this checkout's, and its
 *    bench/.devset-cache, .nlslice-cache and .largeset-cache link into ROOT;
 * 3. prints the run-devset and compare-runs commands.
 *
 * The caches it links are never the shared ones: a run with another model over them would embed
 * them again (the doc-comment indexes are indexed before they are searched) or answer lexically.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadBuiltinModel } from '../src/embed/builtin/model.js';
import { fingerprintKey } from '../src/embed/provider.js';
import { CACHE_LINKS, cacheRootOf, planDatabases } from './reembed-plan.js';
import { formatPlan, planOptionsFromArgs, reembedCaches } from './reembed.js';
import { REPO_ROOT } from './results.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The files of a built-in model directory (manifest.json lists the ones it checks). */
const MODEL_FILES = ['manifest.json', 'vocab.txt', 'weights.bin', 'MODEL_CARD.md'];

/** A link at `at` to `target`, replacing what was there. */
function link(target: string, at: string): void {
  rmSync(at, { recursive: true, force: true });
  symlinkSync(target, at);
}

/** The checkout the candidate runs from: created at this checkout's HEAD when missing; model files and cache links (re)placed. */
function prepareCheckout(dir: string, modelDir: string, root: string): void {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  // an existing checkout moves to this one's HEAD (the candidate's model files are the same path in every commit)
  if (!existsSync(dir)) execFileSync('git', ['worktree', 'add', '--detach', dir, head], { cwd: REPO_ROOT, stdio: 'inherit' });
  else execFileSync('git', ['checkout', '--detach', '--quiet', head], { cwd: dir, stdio: 'inherit' });
  if (!existsSync(join(dir, 'node_modules'))) link(realpathSync(join(REPO_ROOT, 'node_modules')), join(dir, 'node_modules'));
  const builtin = join(dir, 'models', 'builtin');
  for (const f of readdirSync(builtin)) rmSync(join(builtin, f), { force: true });
  for (const f of MODEL_FILES) if (existsSync(join(modelDir, f))) copyFileSync(join(modelDir, f), join(builtin, f));
  mkdirSync(join(root, 'largeset'), { recursive: true });
  for (const [name, at] of Object.entries(CACHE_LINKS)) {
    mkdirSync(join(root, name), { recursive: true });
    link(join(root, name), join(dir, 'bench', basename(at)));
  }
}

async function main(): Promise<void> {
  const modelDir = arg('--model');
  const name = arg('--name');
  if (!modelDir || !name || !/^[\w.-]+$/.test(name)) throw new Error('--model DIR and --name NAME (letters, digits, . _ -) are required');
  const to = arg('--to') ?? join('/work/team', `devcache-${name}`);
  const checkout = arg('--worktree') ?? `${REPO_ROOT}-${name}`;
  const from = arg('--from') ?? cacheRootOf(CACHE_LINKS, realpathSync);
  if (realpathSync(from) === (existsSync(to) ? realpathSync(to) : to)) throw new Error('--to must not be the cache root read');
  const po = planOptionsFromArgs();
  const plan = planDatabases(po);
  process.stdout.write(`${formatPlan(from, plan)}\n`);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const lines = await reembedCaches({ ...po, model: modelDir, from, to, verify: false, log: (l) => process.stderr.write(`${l}\n`) }, plan);
  const cpu = (process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1e6;
  const gb = lines.reduce((a, l) => a + l.bytes, 0) / 1e9;
  process.stdout.write(`re-embedded ${lines.length} dbs (${gb.toFixed(2)} GB) in ${cpu.toFixed(1)} s CPU, ${((performance.now() - t0) / 1000).toFixed(1)} s wall; ${plan.length - lines.length} were done already or skipped\n`);
  prepareCheckout(checkout, modelDir, to);
  const m = await loadBuiltinModel(join(checkout, 'models', 'builtin'));
  const key = fingerprintKey({ provider: 'builtin', model: m.name, dimensions: m.dimensions, version: m.version });
  const sel = [arg('--sets') && `--sets ${arg('--sets')}`, arg('--kinds') && `--kinds ${arg('--kinds')}`, arg('--split') && `--split ${arg('--split')}`, arg('--only') && `--only ${arg('--only')}`].filter(Boolean).join(' ');
  process.stdout.write(
    [
      `checkout ${checkout}: models/builtin = ${key}, caches -> ${to}`,
      'run the candidate, then the reference (this checkout, the caches it links), and compare:',
      `  (cd ${checkout} && npx tsx bench/run-devset.ts ${sel} --variants default --no-baseline && cp bench/results/devset.json ${join(to, `devset-${name}.json`)})`,
      `  npx tsx bench/run-devset.ts ${sel} --variants default --no-baseline && cp bench/results/devset.json ${join(to, 'devset-reference.json')}`,
      `  npx tsx bench/compare-runs.ts ${join(to, 'devset-reference.json')} ${join(to, `devset-${name}.json`)}`,
      '',
    ].join('\n'),
  );
}

await main();
