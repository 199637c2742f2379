/**
 * A text golden file (STYLE.md habit 6): the test compares, `UPDATE_GOLDEN=1` rewrites the file,
 * and the diff is reviewed before committing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';

export function expectGoldenText(file: string, actual: string, rerun: string): void {
  const text = actual.endsWith('\n') ? actual : `${actual}\n`;
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return;
  }
  const fix = `run \`UPDATE_GOLDEN=1 ${rerun}\` and review the diff of ${file}`;
  if (!existsSync(file)) throw new Error(`missing golden ${file}: ${fix}`);
  expect(text, `changed: ${fix}`).toBe(readFileSync(file, 'utf8'));
}
