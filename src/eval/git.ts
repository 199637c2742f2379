import { execFile } from 'node:child_process';
import { EngineError } from '../index.js';

const MAX_OUTPUT = 256 * 1024 * 1024;

/**
 * Runs `git` with arguments (never through a shell) in `cwd` and returns stdout. A missing git or
 * a failing command becomes IO_ERROR with git's own message.
 */
export function git(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', [...args], { cwd, maxBuffer: MAX_OUTPUT, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new EngineError('IO_ERROR', { path: cwd, reason: `git ${args[0]}: ${(stderr || err.message).trim().split('\n')[0]}` }));
      else resolve(stdout);
    });
  });
}
