import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `files` files whose every line names generation `g` (`gen_<g>`), with an mtime that
 * moves with `g` so that a pass sees each file changed. Every file matches the query `zebra`.
 */
export function writeGenerationFiles(root: string, g: number, files: number): void {
  mkdirSync(join(root, 'src'), { recursive: true });
  for (let i = 0; i < files; i++) {
    const lines = Array.from({ length: 12 }, (_, l) => `export const zebra_${i}_${l} = 'gen_${g}'; // zebra gen_${g}`);
    const path = join(root, 'src', `zebra_${i}.ts`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const t = new Date(Date.UTC(2020, 0, 1) + g * 60_000);
    utimesSync(path, t, t);
  }
}

/** The generations named in `text` (`gen_<g>`), once each. */
export function generationsIn(text: string): Set<number> {
  return new Set([...text.matchAll(/gen_(\d+)/g)].map((m) => Number(m[1])));
}
