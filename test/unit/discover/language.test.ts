import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectLanguage, knownLanguages } from '../../../src/discover/language.js';
import { readCandidate } from '../../../src/discover/read.js';
import { makeTempDir, removeDir, runWalk, writeTree } from './walk-helpers.js';

let root: string | undefined;
afterEach(() => {
  if (root) removeDir(root);
  root = undefined;
});

describe('detectLanguage', () => {
  it.each([
    ['src/a.ts', 'typescript', 'code'], ['src/a.mts', 'typescript', 'code'], ['App.tsx', 'tsx', 'code'],
    ['a.js', 'javascript', 'code'], ['a.cjs', 'javascript', 'code'], ['lib/x.py', 'python', 'code'],
    ['main.go', 'go', 'code'], ['lib.rs', 'rust', 'code'], ['A.java', 'java', 'code'], ['x.h', 'c', 'code'],
    ['x.hpp', 'cpp', 'code'], ['run.sh', 'shell', 'code'], ['q.sql', 'sql', 'code'], ['s.scss', 'scss', 'code'],
    ['README.md', 'markdown', 'docs'], ['guide.mdx', 'markdown', 'docs'], ['notes.txt', 'text', 'docs'],
    ['index.rst', 'rst', 'docs'], ['package.json', 'json', 'config'], ['ci.yml', 'yaml', 'config'],
    ['Cargo.toml', 'toml', 'config'], ['pom.xml', 'xml', 'config'], ['.env.example', 'dotenv', 'config'],
  ])('%s → %s (%s)', (path, language, contentType) => {
    expect(detectLanguage(path)).toEqual({ language, contentType });
  });

  it('a name or extension spelled like an Object.prototype member is plain text', () => {
    for (const path of ['lib/constructor', 'src/a.constructor', 'x.toString', 'hasOwnProperty', 'a.__proto__']) {
      expect(detectLanguage(path)).toEqual({ language: 'text', contentType: 'text' });
    }
  });

  it('matches extensions case-insensitively and uses only the last one', () => {
    expect(detectLanguage('LEGACY.PY').language).toBe('python');
    expect(detectLanguage('a.test.ts').language).toBe('typescript');
    expect(detectLanguage('archive.ts.txt').language).toBe('text');
  });

  it.each([
    ['Makefile', 'make'], ['sub/GNUmakefile', 'make'], ['Dockerfile', 'dockerfile'], ['Containerfile', 'dockerfile'],
    ['Dockerfile.dev', 'dockerfile'], ['dockerfile-prod', 'dockerfile'], ['Gemfile', 'ruby'], ['Rakefile', 'ruby'],
    ['Jenkinsfile', 'groovy'], ['CMakeLists.txt', 'cmake'], ['.bashrc', 'shell'], ['.gitignore', 'ignore'],
    ['.editorconfig', 'ini'],
  ])('well-known file name %s → %s', (path, language) => {
    expect(detectLanguage(path).language).toBe(language);
  });

  it('treats LICENSE / README without extension as text docs', () => {
    expect(detectLanguage('LICENSE')).toEqual({ language: 'text', contentType: 'docs' });
    expect(detectLanguage('pkg/README')).toEqual({ language: 'text', contentType: 'docs' });
  });

  it.each([
    ['#!/usr/bin/env python3', 'python'], ['#!/usr/bin/python2.7', 'python'], ['#!/usr/bin/env node', 'javascript'],
    ['#!/usr/bin/env -S deno run', 'javascript'], ['#!/usr/bin/env tsx', 'typescript'], ['#!/bin/bash -e', 'shell'],
    ['#!/bin/sh', 'shell'], ['#!/usr/bin/env ruby', 'ruby'], ['#!/usr/bin/perl -w', 'perl'], ['#!/usr/bin/env php', 'php'],
  ])('shebang %s → %s', (line, language) => {
    expect(detectLanguage('bin/tool', line).language).toBe(language);
  });

  it('ignores shebang-like text that is not a first-line shebang, and unknown interpreters', () => {
    expect(detectLanguage('bin/tool', '# python script').language).toBe('text');
    expect(detectLanguage('bin/tool', '#!/usr/bin/env unknown-thing')).toEqual({ language: 'text', contentType: 'text' });
    // an extension wins over a shebang
    expect(detectLanguage('tool.rb', '#!/usr/bin/env python3').language).toBe('ruby');
  });

  it('falls back to plain text for unknown and extension-less names', () => {
    expect(detectLanguage('data.unknownext')).toEqual({ language: 'text', contentType: 'text' });
    expect(detectLanguage('.hidden')).toEqual({ language: 'text', contentType: 'text' });
  });

  it('knownLanguages is sorted, unique and includes text', () => {
    const langs = knownLanguages();
    expect(langs).toEqual([...new Set(langs)].sort());
    expect(langs).toEqual(expect.arrayContaining(['text', 'typescript', 'python', 'markdown', 'make', 'dockerfile']));
  });
});

describe('language through walk and readCandidate', () => {
  it('detects the shebang of an extension-less script only when its content is read', () => {
    root = makeTempDir();
    writeTree(root, {
      'bin/deploy': '#!/usr/bin/env python3\nprint("hi")\n',
      'bin/run': '#!/bin/bash\r\necho hi\r\n',
      'bin/plain': 'no shebang here\n',
      'bin/tool.js': '#!/usr/bin/env python3\n',
    });
    chmodSync(join(root, 'bin', 'deploy'), 0o755);
    const walked = runWalk(root);
    const byPath = new Map(walked.files.map((f) => [f.path, f]));
    expect(byPath.get('bin/deploy')?.language).toBe('text');
    const read = (p: string): string | undefined => {
      const r = readCandidate(root!, byPath.get(p)!, 1_000_000);
      return r.ok ? `${r.language}/${r.contentType}` : r.reason;
    };
    expect(read('bin/deploy')).toBe('python/code');
    expect(read('bin/run')).toBe('shell/code');
    expect(read('bin/plain')).toBe('text/text');
    expect(read('bin/tool.js')).toBe('javascript/code');
  });

  it('reports Makefile and Dockerfile with their languages from the walk', () => {
    root = makeTempDir();
    writeTree(root, { Makefile: 'all:\n\techo hi\n', 'docker/Dockerfile': 'FROM node:20\n' });
    const langs = Object.fromEntries(runWalk(root).files.map((f) => [f.path, f.language]));
    expect(langs).toEqual({ Makefile: 'make', 'docker/Dockerfile': 'dockerfile' });
  });
});
