/**
 * The query-kind classifier that gates query expansion and the vector blend (issue 17). Golden: it
 * must give every query of the golden set (test/quality/queries.json) the kind written there
 * (`docs` questions are natural language), so that the gate never touches what the set calls an
 * identifier, path or long query.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyQuery } from '../../../src/search/query-kind.js';
import { isLongQuery } from '../../../src/search/query-parse.js';

const kindOf = (q: string): string => classifyQuery(q, { long: isLongQuery(q) });

describe('classifyQuery', () => {
  it('gives every golden-set query its labelled kind', () => {
    const file = JSON.parse(readFileSync(join(import.meta.dirname, '../../quality/queries.json'), 'utf8')) as { queries?: unknown } | unknown[];
    const queries = (Array.isArray(file) ? file : (file as { queries: unknown[] }).queries) as Array<{ query: string; kind: string }>;
    expect(queries.length).toBeGreaterThan(90);
    const wrong = queries.filter((q) => kindOf(q.query) !== (q.kind === 'docs' ? 'natural' : q.kind)).map((q) => `${q.kind}: ${q.query.slice(0, 60)}`);
    expect(wrong).toEqual([]);
  });

  it.each([
    ['getUserName', 'identifier'],
    ['user_name lookup', 'identifier'],
    ['debounce', 'identifier'],
    ['os.path.join', 'identifier'],
    ['"retry failed uploads"', 'identifier'],
    ['parseConfig loadConfig resolveConfig', 'identifier'],
    ['src/store/db.ts', 'path'],
    ['config.yaml', 'path'],
    ['lib/util', 'path'],
    ['where is report/dot/theming configured', 'path'],
    // a sentence with a slash in passing is prose (doc-comment sentences, issue 18)
    ['Adds a recursive CTE (WITH RECURSIVE on PostgreSQL/MySQL/SQLite, plain WITH on MSSQL)', 'natural'],
    ['Compares two boolean values, treating numeric 0/1 as false/true', 'natural'],
    ['Specify an exact database column type for https://mikro-orm.io/docs/schema-generator Schema Generator', 'natural'],
    ['where do we retry failed uploads', 'natural'],
    ['function that merges two observables', 'natural'],
    ['resolve a request through the package.json exports field', 'natural'],
    ['how does parseConfig read the file', 'natural'],
    ['TypeError: x is undefined\n    at foo (src/a.js:1:2)', 'long'],
    ['word '.repeat(50), 'long'],
  ])('%s → %s', (query, kind) => {
    expect(kindOf(query)).toBe(kind);
  });
});
