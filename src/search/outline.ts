import { posix } from 'node:path';
import { EngineError } from '../core/errors.js';
import type { IndexStore } from '../store/index-store.js';
import type { ImportRow, SymbolRow } from '../store/structure-repo.js';
import { isTestPath } from './rank.js';
import { resolveImport, sourcesFor, stemOf, testsFor } from './relations.js';

export interface ResolvedImport extends ImportRow {
  /** The repository file imported, when the import resolves to one. */
  readonly resolved: string | null;
}

/** The structure of one indexed file: what it defines, imports, who imports it, and its tests. */
export interface FileOutline {
  readonly path: string;
  readonly language: string;
  readonly contentType: string;
  readonly lines: number;
  /** Which parser chunked it; `fallback` says why a file with a grammar was chunked by line windows. */
  readonly parser: string;
  readonly fallback: string | null;
  readonly symbols: SymbolRow[];
  readonly imports: ResolvedImport[];
  /** Files whose imports resolve to this one. */
  readonly importedBy: Array<{ path: string; line: number; source: string }>;
  /** True for a test file (`tests/`, `*.test.ts`, `test_*.py`, `*_test.go`, `FooTest.java`...). */
  readonly isTest: boolean;
  /** Test files associated with this file, or, for a test file, the files it tests. */
  readonly tests: string[];
  readonly testedFiles: string[];
  /** Document metadata (markdown frontmatter). */
  readonly metadata: Record<string, unknown> | null;
}

const MAX_IMPORTERS = 500;

export function outlineFile(store: IndexStore, path: string): FileOutline {
  const rel = typeof path === 'string' ? path.replace(/^\.\//, '') : '';
  if (rel === '') throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: 'a path relative to the root' });
  return store.read(() => {
    const info = store.files.info(rel);
    if (!info) throw new EngineError('INVALID_ARGUMENT', { name: 'path', reason: `"${rel}" is not indexed` });
    const files = new Set(store.files.paths());
    const imports = store.structure.importsOf(rel).map((i) => ({ ...i, resolved: resolveImport(i.source, rel, info.language, files) ?? null }));
    const stem = stemOf(rel);
    const dirName = posix.basename(posix.dirname(rel));
    // candidates mention the file's stem (or, for index/__init__/mod files, its directory); each is resolved to be sure
    const fragment = ['index', '__init__', 'mod'].includes(stem) && dirName !== '.' ? dirName : stem;
    const importedBy = store.structure
      .importsMentioning(fragment, MAX_IMPORTERS * 4)
      .filter((i) => {
        const from = store.files.info(i.path);
        return from !== undefined && i.path !== rel && resolveImport(i.source, i.path, from.language, files) === rel;
      })
      .slice(0, MAX_IMPORTERS)
      .map((i) => ({ path: i.path, line: i.line, source: i.source }));
    return {
      path: rel,
      language: info.language,
      contentType: info.contentType,
      lines: info.lineCount,
      parser: info.parser,
      fallback: info.fallback,
      symbols: store.structure.inFile(rel),
      imports,
      importedBy,
      isTest: isTestPath(rel),
      tests: testsFor(rel, files),
      testedFiles: sourcesFor(rel, files),
      metadata: info.metadata ? (JSON.parse(info.metadata) as Record<string, unknown>) : null,
    };
  });
}
