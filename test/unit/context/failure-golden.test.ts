/**
 * Golden files for failure parsing: each log in test/golden/failures/logs/ is real output of the
 * tool it is named after, captured by scripts/failure-logs.sh on the fixtures beside it (temp dir
 * shown as /ROOT). The golden holds what `parseFailure` finds and where `mapFailures` places it
 * among the fixture files. `UPDATE_GOLDEN=1` rewrites the goldens; review the diff.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFailure } from '../../../src/context/failure-log.js';
import { mapFailures } from '../../../src/context/failure-map.js';

const DIR = join(import.meta.dirname, '../../golden/failures');
const LOGS = join(DIR, 'logs');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

function fixtureFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(join(DIR, 'fixtures'), join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

const files = fixtureFiles(join(DIR, 'fixtures'));
const cases = readdirSync(LOGS).filter((f) => f.endsWith('.log')).map((f) => f.slice(0, -4)).sort();

describe('parseFailure on real tool output', () => {
  it('has a log for every tool the issue names that is installable here', () => {
    expect(cases).toEqual(expect.arrayContaining(['pytest', 'unittest', 'python-traceback', 'jest', 'vitest', 'mocha', 'node-stack', 'go-test', 'go-panic', 'cargo-test', 'rustc', 'tsc', 'eslint', 'pyright', 'mypy', 'java']));
  });

  for (const name of cases) {
    it(name, () => {
      const log = readFileSync(join(LOGS, `${name}.log`), 'utf8');
      const parsed = parseFailure(log);
      const mapped = mapFailures(parsed, '/ROOT', files);
      const actual = `${JSON.stringify({ parsed, mapped }, null, 2)}\n`;
      const goldenPath = join(DIR, `${name}.golden.json`);
      if (UPDATE) writeFileSync(goldenPath, actual);
      if (!existsSync(goldenPath)) throw new Error(`missing ${goldenPath}; run with UPDATE_GOLDEN=1 and review it`);
      expect(actual).toBe(readFileSync(goldenPath, 'utf8'));
      // every log holds a failure, and at least one of its items lands on a fixture file
      expect(parsed.length).toBeGreaterThan(0);
      expect(mapped.items.length).toBeGreaterThan(0);
    });
  }
});
