/** The pure parts of the language-server layer: the server table, name positions, and server locations as untrusted input. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { nameColumn } from '../../../src/engine/typed-navigation.js';
import { launchOf, locateExecutable, mayExecute } from '../../../src/lsp/locate-server.js';
import { normaliseLocations } from '../../../src/lsp/lsp-queries.js';
import { BUILTIN_SERVERS, builtinFor, effectiveServers } from '../../../src/lsp/server-table.js';

describe('server table', () => {
  it('maps every index language it serves to one family, TS and JS to the same one', () => {
    expect(builtinFor('tsx')?.name).toBe('typescript');
    expect(builtinFor('javascript')?.name).toBe('typescript');
    expect(builtinFor('python')?.commands).toEqual(['pyright-langserver']);
    expect(builtinFor('markdown')).toBeUndefined();
    const languages = BUILTIN_SERVERS.flatMap((s) => s.languages);
    expect(new Set(languages).size).toBe(languages.length);
  });

  it('a configured server replaces its family (by family or language name) and adds unknown ones', () => {
    const s = effectiveServers({ python: { command: '/opt/pylsp', args: ['-v'] }, tsx: { command: 'tsls', args: [] }, zig: { command: 'zls', args: [] } });
    expect(s.find((x) => x.name === 'python')).toMatchObject({ commands: ['/opt/pylsp'], args: ['-v'] });
    expect(s.find((x) => x.name === 'typescript')).toMatchObject({ commands: ['tsls'], languages: ['typescript', 'tsx', 'javascript'] });
    expect(s.find((x) => x.name === 'zig')).toMatchObject({ commands: ['zls'], languages: ['zig'] });
    expect(s.find((x) => x.name === 'go')?.commands).toEqual(['gopls']);
  });
});

describe('nameColumn', () => {
  it('finds the name as a whole identifier, 1-based', () => {
    expect(nameColumn('  get(key) { return this.getter + get }', 'get')).toBe(3);
    expect(nameColumn('const target = forget(x)', 'get')).toBeUndefined();
    expect(nameColumn('  $get = 1', '$get')).toBe(3);
    expect(nameColumn('def run(self):', 'run')).toBe(5);
  });
});

describe('normaliseLocations: server answers are untrusted', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'scry-lsp-unit-')));
  const root = join(base, 'root');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'x'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), '');
  writeFileSync(join(root, 'node_modules', 'x', 'i.d.ts'), '');
  writeFileSync(join(base, 'secret.ts'), '');
  symlinkSync(base, join(root, 'up'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const loc = (uri: string, line = 0, character = 0) => ({ uri, range: { start: { line, character }, end: { line, character } } });

  it('keeps files inside the root, drops the rest (outside, through a link, node_modules, other schemes), dedupes and sorts', () => {
    const inRoot = pathToFileURL(join(root, 'src', 'a.ts')).href;
    const got = normaliseLocations(root, [
      loc(inRoot, 4, 2), loc(inRoot, 1, 0), loc(inRoot, 4, 2),
      loc(pathToFileURL(join(base, 'secret.ts')).href), loc(pathToFileURL(join(root, 'up', 'secret.ts')).href),
      loc(pathToFileURL(join(root, 'node_modules', 'x', 'i.d.ts')).href), loc('untitled:1'), loc('https://example.com/a.ts'),
    ]);
    expect(got).toEqual([{ path: 'src/a.ts', line: 2, column: 1 }, { path: 'src/a.ts', line: 5, column: 3 }]);
    expect(normaliseLocations(root, null)).toEqual([]);
    expect(normaliseLocations(root, [{ targetUri: inRoot, targetRange: loc(inRoot).range, targetSelectionRange: loc(inRoot, 7, 1).range }])).toEqual([{ path: 'src/a.ts', line: 8, column: 2 }]);
  });

  it('never returns a path outside the root, whatever the URIs', () => {
    const segment = fc.constantFrom('..', '.', 'src', 'a.ts', 'up', 'secret.ts', 'node_modules', '%2e%2e', '');
    const uri = fc.oneof(
      fc.array(segment, { maxLength: 6 }).map((parts) => pathToFileURL(join(root, ...parts)).href),
      fc.array(segment, { maxLength: 6 }).map((parts) => `file://${root}/${parts.join('/')}`),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(uri, fc.nat(1000), fc.nat(200)), { maxLength: 8 }), (items) => {
        for (const p of normaliseLocations(root, items.map(([u, l, c]) => loc(u, l, c)))) {
          expect(p.path.startsWith('..') || p.path.startsWith('/') || p.path.split('/').includes('node_modules')).toBe(false);
          expect(realpathSync(join(root, p.path)).startsWith(`${root}/`)).toBe(true);
        }
      }),
    );
  });
});

describe('which executables may run as a language server', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'scry-lsp-exec-')));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'repo');
  const outside = join(base, 'tools');
  const script = (path: string): string => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '#!/bin/sh\n', { mode: 0o755 });
    return path;
  };

  it('never a file of the project itself, even configured by absolute path or reached through a link', () => {
    const inRepo = script(join(root, 'scripts', 'typescript-language-server'));
    expect(locateExecutable(inRepo, [])).toBe(inRepo); // found ...
    expect(mayExecute(inRepo, root)).toBe(false); // ... but refused
    mkdirSync(join(base, 'bin'), { recursive: true });
    symlinkSync(inRepo, join(base, 'bin', 'pyright-langserver'));
    const viaLink = locateExecutable('pyright-langserver', [join(base, 'bin')]);
    expect(viaLink).toBeDefined();
    expect(mayExecute(viaLink!, root)).toBe(false);
  });

  it('installed packages under the root node_modules and programs outside the root may run', () => {
    expect(mayExecute(script(join(root, 'node_modules', 'pyright', 'langserver.index.js')), root)).toBe(true);
    expect(mayExecute(script(join(outside, 'gopls')), root)).toBe(true);
    expect(mayExecute(join(outside, 'missing'), root)).toBe(false);
  });

  it('a Node script (by extension or #! line, through links) runs under the given Node with its heap capped; anything else as it is', () => {
    const js = script(join(outside, 'pkg', 'langserver.index.js'));
    mkdirSync(join(outside, 'bin'), { recursive: true });
    symlinkSync(js, join(outside, 'bin', 'pyright-langserver'));
    expect(launchOf(join(outside, 'bin', 'pyright-langserver'), ['--stdio'], 1024.7, '/opt/node')).toEqual({ command: '/opt/node', args: ['--max-old-space-size=1024', js, '--stdio'], memoryCap: 'node-heap' });
    const shebang = join(outside, 'tsls');
    writeFileSync(shebang, '#!/usr/bin/env node\nrequire("x");\n', { mode: 0o755 });
    expect(launchOf(shebang, [], 512, '/opt/node').memoryCap).toBe('node-heap');
    const sh = script(join(outside, 'clangd'));
    expect(launchOf(sh, ['--x'], 512, '/opt/node')).toEqual({ command: sh, args: ['--x'], memoryCap: 'none' });
    expect(launchOf(join(outside, 'missing'), [], 512, '/opt/node').memoryCap).toBe('none');
  });
});
