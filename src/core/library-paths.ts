/**
 * Paths of a language runtime or an installed package, never the project's own: what a stack
 * frame or a failure log line points at when it is not the user's code. One rule for the failure
 * map (`src/context/failure-map.ts`, issue 20) and the frames of a pasted trace in a long query
 * (`src/search/traceback.ts`, issue 18). Pure; linear patterns only (paths come from untrusted
 * text).
 *
 * Library: Python's site-packages/dist-packages, its standard library (`lib/python3.x`, Windows
 * `C:\…\Lib\`, frozen modules), virtual environments and conda/pyenv trees, node_modules and
 * Node's internals, the Rust standard library and cargo registry, the Go root and module cache.
 * A relative `Lib/` stays the project's (CPython's own tree has one).
 */
const LIBRARY_PATH = new RegExp(
  [
    String.raw`(?:^|/)(?:site-packages|dist-packages|node_modules|\.pyenv|\.venv|venv|conda|miniconda\d?|anaconda\d?|\.rustup)(?:/|$)`,
    String.raw`(?:^|/)\.cargo/registry/`,
    String.raw`(?:^|/)lib/python\d[\w.]*(?:/|$)`,
    String.raw`^[A-Za-z]:/(?:.*/)?Lib/`,
    String.raw`^\/usr\/(?:local\/)?lib\/(?:python\d|go)`,
    String.raw`^\/rustc\/`,
    String.raw`/go/pkg/mod/`,
    String.raw`/src/(?:runtime|testing)/[^/]+\.go$`,
    String.raw`^(?:node:|internal/)`,
    String.raw`^<frozen `,
    String.raw`^<anonymous>$`,
  ].join('|'),
);

/** Whether `path` (as a trace or log writes it; backslashes read as slashes) is a runtime's or an installed package's file. */
export function isLibraryPath(path: string): boolean {
  return LIBRARY_PATH.test(path.replace(/\\/g, '/'));
}
