import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nameFilter, type WalkOptions } from '../../../src/discover/walk.js';
import { visitTree } from '../../../src/watch/tree-visit.js';
import { makeTempDir, removeDir, runWalk, writeTree } from '../discover/walk-helpers.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach(removeDir));

function options(root: string, ignore: string[] = []): WalkOptions {
  return { root, maxFileBytes: 1_000_000, ignore, denylist: { add: [], remove: [] } };
}

/** Every real directory under `root` (links not followed), '' for the root. */
function allDirs(root: string, rel = ''): string[] {
  const out = [rel];
  for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...allDirs(root, rel === '' ? entry.name : `${rel}/${entry.name}`));
  }
  return out;
}

function visit(walk: WalkOptions): { dirs: string[]; files: string[] } {
  const dirs: string[] = [];
  const files: string[] = [];
  visitTree(walk, nameFilter(walk), '', undefined, { enter: (rel) => (dirs.push(rel), true), entered: () => {}, file: (rel) => files.push(rel) });
  return { dirs: dirs.sort(), files: files.sort() };
}

describe('visitTree', () => {
  it('enters exactly the directories the index walk enters and reports every file it indexes', () => {
    const root = makeTempDir('scry-watch-visit-');
    roots.push(root);
    writeTree(root, {
      '.gitignore': 'gen/\n*.log\n!keep/\n',
      'src/a.ts': 'x', 'src/lib/b.ts': 'x', 'src/lib/.gitignore': 'local/\n', 'src/lib/local/c.ts': 'x',
      'gen/g.ts': 'x', 'gen/keep/k.ts': 'x', 'keep/k.ts': 'x', 'debug.log': 'x',
      'node_modules/p/index.js': 'x', 'dist/out.js': 'x', '.git/HEAD': 'ref', 'docs/.scryignore': 'drafts/\n', 'docs/drafts/d.md': 'x',
      'docs/guide.md': 'x', '.env': 'S=1', 'credentials/service.ts': 'x', 'config-ignored/x.ts': 'x', 'img/logo.png': 'x',
    });
    mkdirSync(join(root, 'empty'));
    symlinkSync('src', join(root, 'src-link'));
    symlinkSync('src/a.ts', join(root, 'alias.ts'));
    const walk = options(root, ['config-ignored/']);
    const walked = runWalk(root, { ignore: ['config-ignored/'] });
    const skippedDirs = [...walked.reasons.keys()].filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1));
    const entered = allDirs(root).filter((d) => !skippedDirs.some((s) => d === s || d.startsWith(`${s}/`)));

    const visited = visit(walk);
    expect(visited.dirs).toEqual(entered.sort());
    expect(visited.dirs).toEqual(['', 'credentials', 'docs', 'empty', 'img', 'keep', 'src', 'src/lib']);
    // names decide here; the walk additionally judges link targets and sizes
    expect(visited.files).toEqual([...walked.paths, 'src-link'].sort());
  });
});
