import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IgnoreRules } from '../../../src/discover/ignore-rules.js';
import { makeTempDir, removeDir, runWalk, writeTree } from './walk-helpers.js';

let root: string;
afterEach(() => removeDir(root));

function setup(files: Record<string, string>): string {
  root = makeTempDir();
  writeTree(root, files);
  return root;
}

describe('.gitignore layers', () => {
  it('honours .git/info/exclude even without any .gitignore', () => {
    setup({ 'a.txt': 'a', 'secret-notes.txt': 'b', 'sub/secret-notes.txt': 'c' });
    mkdirSync(join(root, '.git', 'info'), { recursive: true });
    writeFileSync(join(root, '.git', 'info', 'exclude'), '# comment\nsecret-notes.txt\n');
    const result = runWalk(root);
    expect(result.paths).toEqual(['a.txt']);
    expect(result.reasons.get('sub/secret-notes.txt')).toBe('ignored');
  });

  it('lets a .gitignore re-include what .git/info/exclude excludes (exclude has lower precedence)', () => {
    setup({ 'keep/.gitignore': '*.log\n', 'keep/a.txt': 'a', 'keep/b.log': 'b', '.gitignore': '!keep/\n' });
    mkdirSync(join(root, '.git', 'info'), { recursive: true });
    writeFileSync(join(root, '.git', 'info', 'exclude'), 'keep/\n');
    // regression: the files inside a re-included directory used to stay ignored by the lower layer
    expect(runWalk(root).paths).toEqual(['.gitignore', 'keep/.gitignore', 'keep/a.txt']);
  });

  it('lets a deeper .gitignore override a shallower one, and anchors `/x` to its own directory', () => {
    setup({
      '.gitignore': '*.log\n/root-only\n**/tmp\na/**/b\n',
      'x.log': '', 'root-only': '', 'src/root-only': '', 'src/tmp/t.ts': '', 'a/x/y/b': '', 'a/b': '', 'c/a/b': '',
      'src/.gitignore': '!keep.log\n/local\n', 'src/keep.log': '', 'src/other.log': '', 'src/local': '', 'src/deep/local': '',
    });
    expect(runWalk(root).paths).toEqual(['.gitignore', 'c/a/b', 'src/.gitignore', 'src/deep/local', 'src/keep.log', 'src/root-only']);
  });

  it('cannot re-include a file whose parent directory is excluded (git semantics)', () => {
    setup({ '.gitignore': 'gen/\n!gen/keep.ts\n', 'gen/keep.ts': '', 'gen/other.ts': '' });
    const result = runWalk(root);
    expect(result.paths).toEqual(['.gitignore']);
    expect(result.reasons.get('gen/')).toBe('ignored');
  });

  it('re-includes a directory excluded by `*` with `!*/`, files inside stay excluded', () => {
    setup({ '.gitignore': '*\n!*/\n!*.md\n', 'docs/a.md': '', 'docs/a.ts': '', 'top.md': '' });
    expect(runWalk(root).paths).toEqual(['docs/a.md', 'top.md']);
  });

  it('matches case-insensitively (the `ignore` default; git on Linux is case-sensitive — known divergence)', () => {
    setup({ '.gitignore': '*.log\n', 'X.LOG': '', 'a.ts': '' });
    expect(runWalk(root).paths).toEqual(['.gitignore', 'a.ts']);
  });

  it('matches names with spaces, unicode and glob metacharacters literally', () => {
    setup({ '.gitignore': 'my notes.txt\n日本/\n\\[draft\\].md\n', 'my notes.txt': '', '日本/a.ts': '', '[draft].md': '', 'd.md': '' });
    expect(runWalk(root).paths).toEqual(['.gitignore', 'd.md']);
  });
});

describe('.scryignore and config patterns', () => {
  it('.scryignore excludes files git would keep', () => {
    setup({ '.scryignore': 'fixtures/\n*.snap\n', 'fixtures/a.ts': '', 'a.snap': '', 'a.ts': '' });
    const result = runWalk(root);
    expect(result.paths).toEqual(['.scryignore', 'a.ts']);
    expect(result.reasons.get('fixtures/')).toBe('ignored');
    expect(result.reasons.get('a.snap')).toBe('ignored');
  });

  it('a .scryignore negation re-includes a gitignored file', () => {
    setup({ '.gitignore': '*.generated.ts\n', '.scryignore': '!api.generated.ts\n', 'api.generated.ts': '', 'db.generated.ts': '' });
    expect(runWalk(root).paths).toEqual(['.gitignore', '.scryignore', 'api.generated.ts']);
  });

  it('a .scryignore negation re-includes a gitignored directory and its contents', () => {
    setup({ '.gitignore': 'generated/\n*.log\n', '.scryignore': '!generated/\n', 'generated/api.ts': '', 'generated/x.log': '' });
    expect(runWalk(root).paths).toEqual(['.gitignore', '.scryignore', 'generated/api.ts']);
  });

  it('a nested .scryignore overrides the root .gitignore for its subtree only', () => {
    setup({ '.gitignore': '*.sql\n', 'db/.scryignore': '!*.sql\n', 'db/schema.sql': '', 'other/x.sql': '' });
    expect(runWalk(root).paths).toEqual(['.gitignore', 'db/.scryignore', 'db/schema.sql']);
  });

  it('.gitignore can never override .scryignore, whatever the depth', () => {
    setup({ '.scryignore': '*.snap\n', 'deep/.gitignore': '!*.snap\n', 'deep/a.snap': '' });
    expect(runWalk(root).paths).toEqual(['.scryignore', 'deep/.gitignore']);
  });

  it('config ignore patterns apply last and can negate', () => {
    setup({ '.gitignore': 'vendor/\n', 'vendor/lib.ts': '', 'a.ts': '', 'b.test.ts': '', 'c.ts': '' });
    const result = runWalk(root, { ignore: ['*.test.ts', '!vendor/', 'c.ts'] });
    expect(result.paths).toEqual(['.gitignore', 'a.ts', 'vendor/lib.ts']);
  });
});

describe('IgnoreRules directly', () => {
  it('is immutable: entering a subdirectory does not change the parent stack', () => {
    setup({ '.gitignore': '*.log\n', 'sub/.gitignore': '!*.log\n' });
    const top = IgnoreRules.forRoot(root, []);
    const sub = top.enter(join(root, 'sub'), 'sub');
    expect(sub.ignores('sub/a.log')).toBe(false);
    expect(top.ignores('sub/a.log')).toBe(true);
    expect(top.ignores('a.log')).toBe(true);
  });

  it('returns the same stack for a directory without ignore files', () => {
    setup({ 'sub/a.ts': '' });
    const top = IgnoreRules.forRoot(root, []);
    expect(top.enter(join(root, 'sub'), 'sub')).toBe(top);
  });

  it('treats a trailing slash as "directory only"', () => {
    setup({ '.gitignore': 'out-dir/\n' });
    const rules = IgnoreRules.forRoot(root, []);
    expect(rules.ignores('out-dir/')).toBe(true);
    expect(rules.ignores('out-dir')).toBe(false);
  });
});
