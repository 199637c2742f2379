import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { writeTree } from './temp.js';

/** A small repository with code, docs and config, used by engine and CLI tests. */
export const SMALL_REPO: Record<string, string> = {
  'src/db/open-database.ts': [
    "import Database from 'better-sqlite3';",
    '',
    '/** Opens the SQLite database in WAL mode with a busy timeout. */',
    'export function openDatabase(path: string) {',
    '  const db = new Database(path);',
    "  db.pragma('journal_mode = WAL');",
    "  db.pragma('busy_timeout = 5000');",
    '  return db;',
    '}',
  ].join('\n'),
  'src/http/retry_policy.py': [
    'import time',
    '',
    'def retry_with_backoff(fn, attempts=5):',
    '    """Retry a flaky HTTP call with exponential backoff."""',
    '    for attempt in range(attempts):',
    '        try:',
    '            return fn()',
    '        except ConnectionError:',
    '            time.sleep(2 ** attempt)',
    '    raise RuntimeError("gave up")',
  ].join('\n'),
  'src/parse/configLoader.ts': [
    'export interface LoadedConfig { port: number }',
    '',
    'export function parseConfigFile(text: string): LoadedConfig {',
    '  const value = JSON.parse(text);',
    '  return { port: value.port ?? 8080 };',
    '}',
  ].join('\n'),
  'docs/guide.md': ['# Guide', '', 'Intro text.', '', '## Installation', '', 'Run the installer and restart.', '', '## Configuration', '', 'Set the port in config.json.'].join('\n'),
  'config/app.yaml': 'server:\n  port: 8080\n  retries: 3\n',
  'README.md': '# Demo\n\nA demo project for tests.\n',
};

/** Writes the small repo and backdates every file so that no pass sees it as "racy". */
export function writeSmallRepo(root: string, extra: Record<string, string> = {}): void {
  const files = { ...SMALL_REPO, ...extra };
  writeTree(root, files);
  backdate(root, Object.keys(files));
}

export function backdate(root: string, paths: string[], secondsAgo = 3600): void {
  const t = Date.now() / 1000 - secondsAgo;
  for (const p of paths) utimesSync(join(root, p), t, t);
}
