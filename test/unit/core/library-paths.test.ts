import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLibraryPath } from '../../../src/core/library-paths.js';

describe('isLibraryPath: one rule for failure logs and traceback frames', () => {
  it('knows the runtimes and package trees of Python, Node, Rust and Go', () => {
    const library = [
      '/usr/lib/python3.11/site-packages/requests/api.py',
      '/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py',
      '/home/u/proj/.venv/lib/python3.12/site-packages/x.py',
      '/home/u/.pyenv/versions/3.11.4/lib/python3.11/unittest/case.py',
      '/usr/lib/python3.11/asyncio/base_events.py',
      'C:\\Python311\\Lib\\unittest\\case.py',
      'C:\\Users\\u\\proj\\venv\\Lib\\site-packages\\x.py',
      '<frozen importlib._bootstrap>',
      'node_modules/react/index.js',
      '/app/node_modules/.pnpm/x@1.0.0/node_modules/x/lib/a.js',
      'node:internal/timers',
      'internal/process/task_queues.js',
      '<anonymous>',
      '/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs',
      '/home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.0.0/src/lib.rs',
      '/home/u/.rustup/toolchains/stable/lib/rustlib/src/rust/library/core/src/ops.rs',
      '/usr/local/go/src/testing/testing.go',
      '/usr/lib/go-1.22/src/runtime/panic.go',
      '/home/u/go/pkg/mod/github.com/stretchr/testify@v1.8.4/assert/assertions.go',
    ];
    for (const p of library) expect({ p, lib: isLibraryPath(p) }).toEqual({ p, lib: true });
  });

  it("leaves the project's own files, wherever the checkout is", () => {
    const own = [
      'monai/bundle/scripts.py',
      '/home/u/proj/src/a.py',
      '/work/repo/lib/python_helpers.py',
      'src/runtime/loop.ts',
      'Lib/unittest/case.py', // CPython's own tree
      'pkg/server/handler.go',
      'file:///home/u/proj/src/index.mjs',
      'D:\\work\\proj\\src\\main.py',
      'tests/test_venvironment.py',
    ];
    for (const p of own) expect({ p, lib: isLibraryPath(p) }).toEqual({ p, lib: false });
  });

  it('reads backslashes as slashes and never throws on any string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        expect(isLibraryPath(s)).toBe(isLibraryPath(s.replace(/\\/g, '/')));
      }),
    );
    expect(isLibraryPath(`${'a/'.repeat(20_000)}x.py`)).toBe(false);
  });
});
