import { describe, expect, it } from 'vitest';
import { stripNoise, understandQuery } from '../../../src/search/query-understand.js';

const code = (raw: string): string[] => [...understandQuery(raw).code].sort();
const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

describe('stripNoise', () => {
  it.each([
    '### Describe the bug',
    '## Steps to reproduce',
    '**Expected behavior**',
    'Expected behaviour:',
    '### Actual result',
    '#### Additional context',
    'To Reproduce',
    '### Environment',
    'Is your feature request related to a problem?',
    "Describe the solution you'd like",
  ])('drops the issue-template heading %j', (heading) => {
    expect(lines(stripNoise(`${heading}\nThe watcher drops rename events`))).toEqual(['The watcher drops rename events']);
  });

  it('keeps a heading that says something about the code', () => {
    // only the template's own prompts are noise; a heading naming the failure is content
    expect(lines(stripNoise('### Describe the bug in the tokenizer\nbody'))).toEqual(['### Describe the bug in the tokenizer', 'body']);
  });

  it.each(['- OS: macOS 14', '* OS: Ubuntu 22.04', 'Python version: 3.12.1', 'Node.js version: 20.1.0', 'node v20.1.0', '- react@18.2.0', 'scry 0.1.0', '- Browser: Firefox 126', 'rustc = 1.78.0'])(
    'drops the environment line %j',
    (env) => {
      expect(lines(stripNoise(`Indexing hangs on large repos\n${env}`))).toEqual(['Indexing hangs on large repos']);
    },
  );

  it('keeps prose that merely contains a version number', () => {
    expect(lines(stripNoise('Since 2.3.0 the parser rejects empty files'))).toEqual(['Since 2.3.0 the parser rejects empty files']);
  });

  it('drops checkboxes, separators, trailers and HTML comments', () => {
    const body = [
      'Search returns stale chunks',
      '- [x] I have searched existing issues',
      '* [ ] I am willing to submit a PR',
      '---------',
      '=====',
      '<!-- Please describe the problem below.',
      'Thanks for filing! -->',
      'after reindexing',
      'Signed-off-by: Jane Doe <jane@example.com>',
      'Co-authored-by: Bob <bob@example.com>',
      'Reviewed-by: Ann <ann@example.com>',
    ].join('\n');
    expect(lines(stripNoise(body))).toEqual(['Search returns stale chunks', 'after reindexing']);
  });

  it('drops the wrapped lines of a checkbox item up to a blank line or the next item', () => {
    // a pull-request template's checklist wraps; its second lines named runtests.sh flags and matched them
    const body = [
      'DataStats prints the whole MetaTensor',
      '- [x] Integration tests passed locally by running `./runtests.sh -f -u',
      '--net --coverage`.',
      '- [ ] Quick tests passed locally by running `./runtests.sh --quick',
      '--unittests --disttests`.',
      '',
      'the fix is in DataStatsd',
      '- [ ] Docs updated',
      '1. a numbered step stays',
    ].join('\n');
    expect(lines(stripNoise(body))).toEqual(['DataStats prints the whole MetaTensor', 'the fix is in DataStatsd', '1. a numbered step stays']);
  });

  it('drops references to issues and pull requests but keeps other numbers and anchors', () => {
    expect(stripNoise('Fix meshgrid (#8252)\nFixes #5905 and GH-12; see item 3, color #fff and a&#35;b')).toBe('Fix meshgrid ( )\nFixes   and  ; see item 3, color #fff and a&#35;b');
  });

  it.each(['### Description', '### Types of changes', '## Motivation and context', '### How has this been tested?'])('drops the pull-request template heading %j', (heading) => {
    expect(lines(stripNoise(`${heading}\nThe watcher drops rename events`))).toEqual(['The watcher drops rename events']);
  });

  it('removes URLs but keeps the words around them', () => {
    expect(stripNoise('see https://github.com/acme/scry/issues/12?x=1 and http://localhost:3000/ for details')).toBe('see   and   for details');
  });

  it('keeps the line structure of what it keeps', () => {
    expect(stripNoise('first\n\nsecond\n- OS: Linux\nthird')).toBe('first\n\nsecond\nthird');
  });

  it('leaves text without noise unchanged', () => {
    const text = 'TypeError in `parseQuery`\n    at parseQuery (src/search/query-parse.ts:12:3)';
    expect(stripNoise(text)).toBe(text);
  });
});

describe('understandQuery: title', () => {
  it('is the first meaningful line, after the noise is gone', () => {
    expect(understandQuery('\n---\n### Describe the bug\n\nWatcher misses renames\nmore text').title).toBe('Watcher misses renames');
  });

  it.each([
    ['fix(router): handle trailing slash', 'handle trailing slash'],
    ['feat: add a --json flag', 'add a --json flag'],
    ['refactor(store)!: drop the v1 schema', 'drop the v1 schema'],
    ['[core] Watcher misses renames', 'Watcher misses renames'],
    ['  chore(deps): bump zod', 'bump zod'],
  ])('removes the commit-category prefix of %j', (subject, title) => {
    expect(understandQuery(`${subject}\n\nbody text`).title).toBe(title);
  });

  it('keeps a line without a prefix as it is', () => {
    expect(understandQuery('Watcher misses renames on macOS\nbody').title).toBe('Watcher misses renames on macOS');
  });

  it('is empty when nothing meaningful is left', () => {
    expect(understandQuery('### Describe the bug\n- OS: Linux\n---').title).toBe('');
  });

  // Known bug (reported, not fixed here): CONVENTIONAL_RE takes any `word: ` as a commit type, so an
  // issue titled with an exception loses it: expected "TypeError: Cannot read…", actual "Cannot read…".
  it('keeps an exception name that starts the title', () => {
    expect(understandQuery("TypeError: Cannot read properties of undefined (reading 'map')\n\nbody").title).toBe(
      "TypeError: Cannot read properties of undefined (reading 'map')",
    );
  });
});

describe('understandQuery: words written as code', () => {
  it('takes every word inside backticks, compound or not', () => {
    expect(code('The `render` call in `createApp()` fails')).toEqual(['createapp', 'render']);
  });

  it('takes compound identifiers from fenced blocks, not their plain words', () => {
    const body = ['Repro:', '```ts', 'const watcher = createWatcher(rootDir, { debounce_ms: 50 });', 'await watcher.close();', '```'].join('\n');
    const c = code(body);
    expect(c).toEqual(expect.arrayContaining(['createwatcher', 'rootdir', 'debounce_ms', 'watcher', 'close']));
    for (const plain of ['const', 'await', 'repro', '50']) expect(c).not.toContain(plain);
  });

  it('takes functions and files from JS stack frames', () => {
    const trace = [
      "TypeError: Cannot read properties of undefined (reading 'length')",
      '    at tokenize (src/parse/tokenizer.js:10:5)',
      '    at async Indexer.run (/home/me/scry/src/indexer/run.js:88:12)',
      '    at src/cli/main.js:3:1',
    ].join('\n');
    const c = code(trace);
    expect(c).toEqual(expect.arrayContaining(['typeerror', 'tokenize', 'tokenizer', 'indexer', 'run', 'main', 'cli', 'parse']));
    for (const prose of ['cannot', 'read', 'properties', 'undefined', 'reading', 'length']) expect(c).not.toContain(prose);
  });

  it('takes files and functions from Python tracebacks', () => {
    const trace = [
      'Traceback (most recent call last):',
      '  File "scry/store/open.py", line 10, in load',
      '    return parse(x)',
      '  File "scry/config.py", line 42, in parse',
      'ValueError: unexpected token',
    ].join('\n');
    const c = code(trace);
    expect(c).toEqual(expect.arrayContaining(['scry', 'store', 'open', 'load', 'config', 'parse', 'valueerror']));
    for (const prose of ['traceback', 'most', 'recent', 'call', 'last', 'unexpected', 'token', 'return']) expect(c).not.toContain(prose);
  });

  it('takes classes and methods from Java stack frames', () => {
    const trace = [
      'Exception in thread "main" java.lang.IllegalStateException: closed',
      '\tat com.acme.store.ChunkStore.write(ChunkStore.java:42)',
      '\tat com.acme.Main.main(Main.java:7)',
    ].join('\n');
    const c = code(trace);
    expect(c).toEqual(expect.arrayContaining(['illegalstateexception', 'chunkstore', 'write', 'acme', 'store', 'main', 'java']));
    for (const prose of ['exception', 'thread', 'closed']) expect(c).not.toContain(prose);
  });

  it('takes paths from Go panics and file:line references', () => {
    const trace = ['panic: runtime error: index out of range', '', 'goroutine 1 [running]:', 'main.handler(0xc000010000)', '\t/home/me/app/server/routes.go:12 +0x1d'].join('\n');
    const c = code(trace);
    expect(c).toEqual(expect.arrayContaining(['routes', 'server', 'handler', 'main']));
    for (const prose of ['panic', 'runtime', 'error', 'index', 'range', 'goroutine', 'running']) expect(c).not.toContain(prose);
    expect(code('It breaks in lib/markdown_chunker.rb:120 since yesterday')).toEqual(expect.arrayContaining(['lib', 'markdown_chunker']));
    // a segment starting with a digit is still part of the file
    expect(code('It breaks in pkg/2fa/verify.go:120 since yesterday')).toEqual(expect.arrayContaining(['pkg', '2fa', 'verify']));
  });

  it('takes exception and error names anywhere in the text', () => {
    expect(code('Indexing throws QuotaExceededError, then a NullPointerException and a DeprecationWarning')).toEqual([
      'deprecationwarning',
      'nullpointerexception',
      'quotaexceedederror',
    ]);
    // no case change inside, yet still an error name
    expect(code('Decoding fails with Utf8Error and S3Exception')).toEqual(['s3exception', 'utf8error']);
    // a bare "Error" or "Exception" is prose
    expect(code('Error: the Exception was swallowed')).toEqual([]);
  });

  it('takes compound identifiers written in prose', () => {
    expect(code('Calling getUserName after user_name was set via os.path.join breaks src/store/db.ts and Foo::bar')).toEqual(
      expect.arrayContaining(['getusername', 'user_name', 'os', 'path', 'join', 'src', 'store', 'db', 'ts', 'foo', 'bar']),
    );
  });

  it('leaves plain prose out', () => {
    const body = 'When a file is renamed while the watcher runs, the index keeps the old path and search returns stale results.';
    expect(code(body)).toEqual([]);
  });

  it('lowercases and ignores single letters', () => {
    expect(code('`XMLHttpRequest` and `a`')).toEqual(['xmlhttprequest']);
  });

  it('does not read code out of the noise it strips', () => {
    // URL paths and comments are gone before code words are collected
    expect(code('see https://example.com/fooBar/baz_qux.js:10 <!-- `hiddenName` -->')).toEqual([]);
  });

  it('returns the stripped text', () => {
    const u = understandQuery('Crash in `load`\n- OS: Linux\nSigned-off-by: A <a@b.c>');
    expect(u.text).toBe('Crash in `load`');
  });
});

describe('title and environment lines, the harder cases', () => {
  it('strips "Steps to reproduce the behavior:" like the bare heading', () => {
    expect(stripNoise('Steps to reproduce the behavior:\n1. run the parser').split('\n')).toEqual(['1. run the parser']);
  });

  it('takes the first line of prose as the title, not a fence, a traceback header or a frame', () => {
    expect(understandQuery('```ts\nconst x = parse(input)\n```\nparse throws on empty input').title).toBe('const x = parse(input)');
    expect(understandQuery('Traceback (most recent call last):\n  File "pkg/mod.py", line 3, in load\nKeyError: name').title).toBe('File "pkg/mod.py", line 3, in load');
  });

  it('keeps a sentence that merely starts with an environment word', () => {
    const line = 'Memory: leaks grow after an hour when the watcher restarts twice in a row';
    expect(stripNoise(line)).toBe(line);
    expect(stripNoise('- Memory: 16 GB')).toBe('');
    expect(stripNoise('Platform: linux-x64 node 20.1.0')).toBe('');
  });
});
