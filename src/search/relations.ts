import { posix } from 'node:path';

/**
 * Import resolution and test association: pure functions of paths. Imports are resolved when
 * they are read, against the files indexed at that moment, so an import of a file added later
 * resolves without re-indexing the importer.
 */

const JS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.vue', '.svelte', '.json'];
const JS_LANGS = new Set(['typescript', 'tsx', 'javascript', 'vue', 'svelte']);

/** The repository file an import refers to, or undefined (a package, the standard library, or not found). */
export function resolveImport(source: string, fromPath: string, language: string, files: ReadonlySet<string>): string | undefined {
  const dir = posix.dirname(fromPath);
  if (JS_LANGS.has(language)) {
    if (!source.startsWith('.') && !source.startsWith('/')) return undefined;
    const base = posix.normalize(posix.join(dir, source));
    // `./x.js` in TypeScript sources names `./x.ts`
    const stripped = base.replace(/\.(?:m|c)?js$/, '');
    const stems = stripped === base ? [base] : [base, stripped];
    for (const stem of stems) {
      if (files.has(stem)) return stem;
      for (const ext of JS_EXTENSIONS) if (files.has(stem + ext)) return stem + ext;
      for (const ext of JS_EXTENSIONS) if (files.has(`${stem}/index${ext}`)) return `${stem}/index${ext}`;
    }
    return undefined;
  }
  if (language === 'python') return resolvePython(source, dir, files);
  if (language === 'go') return resolveGo(source, files);
  if (language === 'c' || language === 'cpp') {
    for (const candidate of [posix.normalize(posix.join(dir, source)), source]) if (files.has(candidate)) return candidate;
    return suffixMatch(`/${source}`, files);
  }
  if (language === 'ruby' || language === 'php') {
    const base = posix.normalize(posix.join(dir, source));
    for (const c of [base, `${base}.rb`, `${base}.php`]) if (files.has(c)) return c;
    return undefined;
  }
  if (language === 'rust' || language === 'java' || language === 'csharp') {
    // `crate::store::db::Db`, `com.acme.store.Db`: the longest module path that is a file
    const parts = source.replace(/^(?:crate|self|super)::/, '').split(/::|\./).filter((p) => p && p !== '*' && p !== '{');
    const ext = language === 'rust' ? '.rs' : language === 'java' ? '.java' : '.cs';
    for (let n = parts.length; n > 0; n--) {
      const rel = parts.slice(0, n).join('/');
      const hit = suffixMatch(`/${rel}${ext}`, files) ?? (language === 'rust' ? suffixMatch(`/${rel}/mod.rs`, files) : undefined);
      if (hit) return hit;
    }
  }
  return undefined;
}

function resolvePython(source: string, dir: string, files: ReadonlySet<string>): string | undefined {
  const dots = /^\.*/.exec(source)![0].length;
  const modulePath = source.slice(dots).split('.').filter(Boolean).join('/');
  const candidates = (base: string): string[] => (base === '' ? [] : [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`]);
  if (dots > 0) {
    let base = dir;
    for (let i = 1; i < dots; i++) base = posix.dirname(base);
    const full = modulePath ? posix.join(base, modulePath) : posix.join(base, '__init__');
    for (const c of modulePath ? candidates(full) : [`${full}.py`]) if (files.has(c.replace(/^\.\//, ''))) return c.replace(/^\.\//, '');
    return undefined;
  }
  for (const c of candidates(modulePath)) {
    if (files.has(c)) return c;
    const nested = suffixMatch(`/${c}`, files); // src/ layouts: `pkg.mod` lives in `src/pkg/mod.py`
    if (nested) return nested;
  }
  return undefined;
}

/** Go imports name a package directory: the first file of the directory whose path ends the import path. */
function resolveGo(source: string, files: ReadonlySet<string>): string | undefined {
  const parts = source.split('/');
  for (let n = Math.min(parts.length, 4); n > 0; n--) {
    const suffix = parts.slice(parts.length - n).join('/');
    const hits = [...files].filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && (posix.dirname(f) === suffix || posix.dirname(f).endsWith(`/${suffix}`))).sort();
    if (hits.length > 0) return hits[0];
  }
  return undefined;
}

function suffixMatch(suffix: string, files: ReadonlySet<string>): string | undefined {
  let best: string | undefined;
  for (const f of files) if ((`/${f}`).endsWith(suffix) && (!best || f.length < best.length)) best = f;
  return best;
}

const TEST_MARK_RE = /(?:^test_|_test$|_spec$|\.test$|\.spec$|Tests?$|Spec$)/;

/** The name a test file is about: `test_foo.py` → `foo`, `foo.test.ts` → `foo`, `FooTest.java` → `Foo`. */
export function testSubject(path: string): string | undefined {
  const base = posix.basename(path);
  const stem = base.slice(0, base.indexOf('.') > 0 ? base.lastIndexOf('.') : base.length);
  if (!TEST_MARK_RE.test(stem)) return undefined;
  const subject = stem.replace(TEST_MARK_RE, '');
  return subject || undefined;
}

/** A file's name up to its first dot (`foo.test.ts` → `foo`); a dotfile keeps its name. */
export const stemOf = (path: string): string => {
  const base = posix.basename(path);
  const dot = base.indexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
};

/**
 * Test files associated with a source file (`src/foo.ts` ↔ `test/foo.test.ts`,
 * `pkg/x.py` ↔ `tests/test_x.py`, `Foo.java` ↔ `FooTest.java`, `x.go` ↔ `x_test.go`): tests
 * whose subject is the file's stem, nearest directory first.
 */
export function testsFor(path: string, files: Iterable<string>): string[] {
  const stem = stemOf(path);
  const out: string[] = [];
  for (const f of files) if (f !== path && testSubject(f) === stem) out.push(f);
  return out.sort((a, b) => sharedPrefix(b, path) - sharedPrefix(a, path) || a.localeCompare(b));
}

/** Source files a test file is about: the inverse of `testsFor`. */
export function sourcesFor(testPath: string, files: Iterable<string>): string[] {
  const subject = testSubject(testPath);
  if (!subject) return [];
  const ext = posix.extname(testPath);
  const out: string[] = [];
  for (const f of files) if (f !== testPath && !testSubject(f) && stemOf(f) === subject && posix.extname(f) === ext) out.push(f);
  return out.sort((a, b) => sharedPrefix(b, testPath) - sharedPrefix(a, testPath) || a.localeCompare(b));
}

function sharedPrefix(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  let n = 0;
  while (n < pa.length && n < pb.length && pa[n] === pb[n]) n++;
  return n;
}
