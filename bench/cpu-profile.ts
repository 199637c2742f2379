/**
 * Summarises a V8 `.cpuprofile` by where time goes: self time by area (src/ or dist/<folder>, a
 * package, node internals, native/GC) and by function, and inclusive time of scry's own functions (so
 * phases such as walk, readCandidate, writeChunks or ChunkRepo.insert can be read off directly;
 * a function is counted once per sample even when recursive).
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/index-throughput.ts --full-only
 *   npx tsx bench/cpu-profile.ts /tmp/prof/<file>.cpuprofile [--top 30]
 *   (CLI: node --cpu-prof --cpu-prof-dir=/tmp/prof bin/scry.js search Q --db DB; native SQLite time
 *   is charged to the JS function that called into better-sqlite3)
 *
 * Writes bench/results/cpu-profile.json.
 */
import { readFileSync } from 'node:fs';
import { environment, parseArgs, writeResult } from './results.js';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

/** Where a frame's code lives: `src/<folder>`, `pkg:<name>`, `node:<module>`, or a V8 pseudo-frame. */
export function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  // scry's own code, as TypeScript under tsx (src/) or compiled (dist/, e.g. when profiling the CLI)
  const own = /\/(src|dist)\/([^/]+)\//.exec(url);
  if (own && !url.includes('/node_modules/')) return `${own[1]}/${own[2]}`;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  if (url.includes('/bench/')) return 'bench';
  return url;
}

function keyOf(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, '').replace(/^.*?\/(src|dist|bench|node_modules)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

function top(map: Map<string, number>, n: number, totalMs: number): Array<{ name: string; ms: number; pct: number }> {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: Math.round(us / 1000), pct: Math.round((us / 1000 / totalMs) * 1000) / 10 }));
}

export function summarizeProfile(profile: CpuProfile, n: number): Record<string, unknown> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const selfArea = new Map<string, number>();
  const selfFn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    // timeDeltas[i] is the gap before sample i; the gap after it is the time it stands for.
    const us = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    total += us;
    const node = byId.get(id)!;
    const add = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + us);
    add(selfArea, areaOf(node.callFrame));
    add(selfFn, keyOf(node.callFrame));
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      if (!/^(src|dist)\//.test(areaOf(frame))) continue;
      const key = keyOf(frame);
      if (!seen.has(key)) {
        seen.add(key);
        add(inclusive, key);
      }
    }
  });
  const totalMs = total / 1000;
  return {
    totalMs: Math.round(totalMs),
    selfByArea: top(selfArea, n, totalMs),
    selfByFunction: top(selfFn, n, totalMs),
    inclusiveSrc: top(inclusive, n, totalMs),
  };
}

function main(): void {
  const { flags, values } = parseArgs(process.argv.slice(2));
  const file = process.argv.slice(2).find((a) => a.endsWith('.cpuprofile'));
  if (!file || flags.has('help')) {
    console.error('usage: npx tsx bench/cpu-profile.ts <file.cpuprofile> [--top N]');
    process.exitCode = 2;
    return;
  }
  const n = Number(values.get('top') ?? 30);
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, n);
  console.log(`total sampled ${String(summary.totalMs)} ms`);
  for (const section of ['selfByArea', 'selfByFunction', 'inclusiveSrc'] as const) {
    console.log(`\n${section}`);
    for (const row of summary[section] as Array<{ name: string; ms: number; pct: number }>) {
      console.log(`  ${String(row.ms).padStart(7)} ms ${row.pct.toFixed(1).padStart(5)}%  ${row.name}`);
    }
  }
  console.log(`\nwrote ${writeResult('cpu-profile', { env: environment(), profile: file, ...summary })}`);
}

main();
