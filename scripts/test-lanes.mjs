#!/usr/bin/env node
/**
 * `npm test`: typecheck, lint, then the four test lanes in order, each timed; prints a table of
 * wall times and stops at the first failure with its exit code.
 *
 *   node scripts/test-lanes.mjs                       # everything (what CI runs)
 *   node scripts/test-lanes.mjs unit integration      # some steps only
 *
 * Lanes (README "Contributing"): unit — pure and in-process (test/unit; no child processes, no
 * whole-engine runs, enforced by test/unit/test-lanes.test.ts); integration — real SQLite,
 * tree-sitter, child processes, MCP and CLI (test/integration); quality — the ranking quality
 * gate (test/quality, test/paraphrase); install — pack, install the tarball into a temporary
 * prefix, drive `scry mcp` from another directory and type-check a consumer (test/install). CI's budget for all of it is 40 minutes on 2 cores.
 */
import { spawnSync } from 'node:child_process';

const STEPS = [
  { name: 'typecheck', script: 'typecheck' },
  { name: 'lint', script: 'lint' },
  { name: 'unit', script: 'test:unit' },
  { name: 'integration', script: 'test:integration' },
  { name: 'quality', script: 'test:quality' },
  { name: 'install', script: 'test:install' },
];
const BUDGET_S = 40 * 60;

const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !STEPS.some((s) => s.name === a));
if (unknown.length > 0) {
  process.stderr.write(`unknown step ${unknown.join(', ')}; steps: ${STEPS.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}
const steps = asked.length === 0 ? STEPS : STEPS.filter((s) => asked.includes(s.name));

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const rows = [];
let failed;
for (const step of steps) {
  process.stdout.write(`\n=== ${step.name} (npm run ${step.script}) ===\n`);
  const start = process.hrtime.bigint();
  const run = spawnSync(npm, ['run', '--silent', step.script], { stdio: 'inherit' });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const code = run.status ?? 1;
  rows.push({ step: step.name, seconds, result: code === 0 ? 'ok' : `FAILED (exit ${code}${run.signal ? `, ${run.signal}` : ''})` });
  if (code !== 0) {
    failed = code;
    break;
  }
}

const fmt = (s) => `${Math.floor(s / 60)}m${(s % 60).toFixed(1).padStart(4, '0')}s`;
const total = rows.reduce((n, r) => n + r.seconds, 0);
const width = Math.max(...rows.map((r) => r.step.length), 'total'.length);
process.stdout.write('\nstep'.padEnd(width + 3) + 'wall time   result\n');
for (const r of rows) process.stdout.write(`${r.step.padEnd(width + 2)}${fmt(r.seconds).padStart(10)}   ${r.result}\n`);
process.stdout.write(`${'total'.padEnd(width + 2)}${fmt(total).padStart(10)}   budget ${fmt(BUDGET_S)}${total > BUDGET_S ? ' EXCEEDED' : ''}\n`);
process.exit(failed ?? 0);
