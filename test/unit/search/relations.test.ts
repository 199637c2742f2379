/**
 * Import resolution and test association: pure functions of paths, checked per language against
 * small file sets. Each case says why the expected file is the right one.
 */
import { describe, expect, it } from 'vitest';
import { resolveImport, sourcesFor, testSubject, testsFor } from '../../../src/search/relations.js';

const FILES = new Set([
  'src/store/database.ts',
  'src/store/index.ts',
  'src/util/strings.js',
  'src/ui/Button.tsx',
  'src/ui/Button.test.tsx',
  'test/store/database.test.ts',
  'pkg/__init__.py',
  'pkg/mod.py',
  'pkg/sub/__init__.py',
  'pkg/sub/deep.py',
  'src/app/core/config.py',
  'tests/test_mod.py',
  'internal/store/db.go',
  'internal/store/db_test.go',
  'cmd/tool/main.go',
  'src/store/db.rs',
  'src/store/mod.rs',
  'src/main/java/com/acme/store/OrderRepository.java',
  'src/test/java/com/acme/store/OrderRepositoryTest.java',
  'include/ring_buffer.h',
  'src/ring_buffer.c',
  'lib/billing.rb',
  'spec/billing_spec.rb',
]);

describe('resolveImport', () => {
  it.each([
    // TypeScript sources import `./x.js` for `./x.ts` (NodeNext): the .ts file is meant
    ['../store/database.js', 'src/ui/Button.tsx', 'typescript', 'src/store/database.ts'],
    // a directory import resolves to its index file
    ['../store', 'src/ui/Button.tsx', 'typescript', 'src/store/index.ts'],
    // extension-less relative import of a .js file
    ['../util/strings', 'src/ui/Button.tsx', 'tsx', 'src/util/strings.js'],
    // a package import is not a repository file
    ['react', 'src/ui/Button.tsx', 'tsx', undefined],
    // relative Python import from a package module
    ['.mod', 'pkg/sub/deep.py', 'python', undefined],
    ['..mod', 'pkg/sub/deep.py', 'python', 'pkg/mod.py'],
    ['.deep', 'pkg/sub/__init__.py', 'python', 'pkg/sub/deep.py'],
    // absolute module paths: a module file, then a package's __init__
    ['pkg.mod', 'tests/test_mod.py', 'python', 'pkg/mod.py'],
    ['pkg.sub', 'tests/test_mod.py', 'python', 'pkg/sub/__init__.py'],
    // src/ layouts: `app.core.config` lives under src/
    ['app.core.config', 'tests/test_mod.py', 'python', 'src/app/core/config.py'],
    ['os.path', 'pkg/mod.py', 'python', undefined],
    // Go imports name a package directory; the module prefix is not in the repo's paths; tests are not the package
    ['github.com/acme/tool/internal/store', 'cmd/tool/main.go', 'go', 'internal/store/db.go'],
    ['fmt', 'cmd/tool/main.go', 'go', undefined],
    // C includes: relative to the including file, then anywhere by suffix
    ['ring_buffer.h', 'src/ring_buffer.c', 'c', 'include/ring_buffer.h'],
    ['stdio.h', 'src/ring_buffer.c', 'c', undefined],
    // Rust `use crate::store::db::Db`: the longest module path that is a file
    ['crate::store::db::Db', 'src/main.rs', 'rust', 'src/store/db.rs'],
    // Java imports by package path
    ['com.acme.store.OrderRepository', 'src/main/java/com/acme/App.java', 'java', 'src/main/java/com/acme/store/OrderRepository.java'],
    // Ruby require_relative
    ['../lib/billing', 'spec/billing_spec.rb', 'ruby', 'lib/billing.rb'],
  ])('%s from %s (%s) → %s', (source, from, language, expected) => {
    expect(resolveImport(source, from, language, FILES)).toBe(expected);
  });
});

describe('test association', () => {
  it('names the subject of a test file by its convention', () => {
    expect(testSubject('test/store/database.test.ts')).toBe('database');
    expect(testSubject('tests/test_mod.py')).toBe('mod');
    expect(testSubject('internal/store/db_test.go')).toBe('db');
    expect(testSubject('src/test/java/com/acme/store/OrderRepositoryTest.java')).toBe('OrderRepository');
    expect(testSubject('spec/billing_spec.rb')).toBe('billing');
    expect(testSubject('src/store/database.ts')).toBeUndefined();
  });

  it('finds the tests of a source file, nearest directory first', () => {
    expect(testsFor('src/store/database.ts', FILES)).toEqual(['test/store/database.test.ts']);
    expect(testsFor('src/ui/Button.tsx', FILES)).toEqual(['src/ui/Button.test.tsx']);
    expect(testsFor('pkg/mod.py', FILES)).toEqual(['tests/test_mod.py']);
    expect(testsFor('internal/store/db.go', FILES)).toEqual(['internal/store/db_test.go']);
    expect(testsFor('src/main/java/com/acme/store/OrderRepository.java', FILES)).toEqual(['src/test/java/com/acme/store/OrderRepositoryTest.java']);
    expect(testsFor('lib/billing.rb', FILES)).toEqual(['spec/billing_spec.rb']);
  });

  it('finds the source files of a test file, same extension only', () => {
    expect(sourcesFor('test/store/database.test.ts', FILES)).toEqual(['src/store/database.ts']);
    expect(sourcesFor('internal/store/db_test.go', FILES)).toEqual(['internal/store/db.go']);
    // db_test.go's subject `db` also names src/store/db.rs, but a Go test does not test Rust
    expect(sourcesFor('src/store/database.ts', FILES)).toEqual([]);
  });
});
