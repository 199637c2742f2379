import { execFile } from 'node:child_process';
import { EngineError } from '../index.js';

const MAX_OUTPUT = 256 * 1024 * 1024;

/** The line of git's stderr that says what failed (`fatal:`/`error:`), else its first line. */
function gitMessage(stderr: string): string {
  const lines = stderr.trim().split('\n');
  return (lines.find((l) => /^(?:fatal|error):/.test(l)) ?? lines[0] ?? '').trim();
}

/**
 * Runs `git` with arguments (never through a shell) in `cwd` and returns stdout. A missing git or
 * a failing command becomes IO_ERROR with git's own message.
 */
export function git(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', [...args], { cwd, maxBuffer: MAX_OUTPUT, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new EngineError('IO_ERROR', { path: cwd, reason: `git ${args[0]}: ${gitMessage(stderr || err.message)}` }));
      else resolve(stdout);
    });
  });
}
