import fc from 'fast-check';
import ignore from 'ignore';
import { describe, expect, it } from 'vitest';
import { BUILTIN_DENYLIST, BUILTIN_SECRET_PATHS, BUILTIN_SECRETS } from '../../../src/discover/denylist.js';
import { literalFragments, prefilteredIgnore } from '../../../src/discover/prefiltered-ignore.js';

/** Path segments and pattern pieces from a small alphabet, so that patterns and paths often meet. */
const segment = fc.constantFrom('src', 'Node_Modules', 'node_modules', 'a.min.js', 'A.PEM', '.env', '.env.example', 'id_rsa.pub', 'x.so', '.kube', 'config', 'lib', 'index.ts', 'b', 'dist', '.aws', 'credentials', 'README.md', 'foo.tfstate.backup', 'a.so.1', 'lib.git', 'x.gitignore', 'build');
// a trailing slash: a directory, as the walk asks about them
const path = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.boolean()).map(([s, dir]) => s.join('/') + (dir ? '/' : ''));
const piece = fc.constantFrom('*', '**', '?', '/', '[ab]', '[!x]', 'src', 'node_modules', '.min.js', '.pem', '.env', 'id_rsa', '.so', '.kube', 'config', 'lib', 'B', 'dist', '.aws', 'credentials', '.tfstate.', ' ', '#', '\\*', '.git', 'a/', 'build', '.a');
const pattern = fc.tuple(fc.constantFrom('', '', '', '!', '/'), fc.array(piece, { minLength: 1, maxLength: 4 })).map(([lead, ps]) => lead + ps.join(''));

const plain = (patterns: readonly string[], p: string): boolean => ignore().add([...patterns]).ignores(p);

describe('prefilteredIgnore (the walk\'s cheap pre-check before `ignore`)', () => {
  it('decides exactly as `ignore` for random patterns and paths', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 8 }), fc.array(path, { minLength: 1, maxLength: 10 }), (patterns, paths) => {
        const fast = prefilteredIgnore(patterns);
        for (const p of paths) expect(fast.ignores(p), `${JSON.stringify(patterns)} on ${p}`).toBe(plain(patterns, p));
      }),
      { numRuns: 500 },
    );
  });

  it('decides exactly as `ignore` for the built-in lists', () => {
    const lists = [BUILTIN_DENYLIST, BUILTIN_SECRETS, BUILTIN_SECRET_PATHS];
    fc.assert(
      fc.property(path, (p) => {
        for (const list of lists) expect(prefilteredIgnore(list).ignores(p)).toBe(plain(list, p));
      }),
      { numRuns: 500 },
    );
    // hand-picked: each list's kinds of rule, negations and parents included
    const cases: Array<[readonly string[], string, boolean]> = [
      [BUILTIN_DENYLIST, 'pkg/node_modules/x/index.js', true],
      [BUILTIN_DENYLIST, 'web/app.MIN.JS', true],
      [BUILTIN_DENYLIST, 'src/minify.js', false],
      [BUILTIN_SECRETS, '.env.example', false],
      [BUILTIN_SECRETS, '.env.local', true],
      [BUILTIN_SECRETS, 'id_rsa.pub', true],
      [BUILTIN_SECRET_PATHS, 'home/.kube/config', true],
      [BUILTIN_SECRET_PATHS, 'kube/config', false],
    ];
    for (const [list, p, expected] of cases) expect(prefilteredIgnore(list).ignores(p), p).toBe(expected);
  });

  it('derives the literal fragments a match needs', () => {
    expect(literalFragments('*.min.js')).toEqual(['.min.js']);
    expect(literalFragments('**/.config/gcloud/**/*credentials*')).toEqual(['.config', 'gcloud', 'credentials']);
    expect(literalFragments('ID_RSA*')).toEqual(['id_rsa']);
    expect(literalFragments('file[0-9].txt')).toEqual(['file', '.txt']);
    expect(literalFragments('\\#notes')).toBeUndefined();
  });
});
