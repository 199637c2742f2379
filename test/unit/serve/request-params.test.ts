/** Query parameters of GET /api/search and /api/search_text (issue 23): checked before any work. */
import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/core/errors.js';
import { parseSearchParams } from '../../../src/serve/search-route.js';
import { parseTextParams } from '../../../src/serve/text-route.js';

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (err) {
    if (isEngineError(err)) return err.code;
    throw err;
  }
};
const params = (q: string): URLSearchParams => new URLSearchParams(q);

describe('search parameters', () => {
  it('reads q, k and one or several repositories', () => {
    expect(parseSearchParams(params('q=retry+delay&repo=api,web&repo=docs&k=5'))).toEqual({ query: 'retry delay', repos: ['api', 'web', 'docs'], limit: 5 });
    expect(parseSearchParams(params('q=retry'))).toEqual({ query: 'retry', repos: undefined, limit: 10 });
  });

  it('refuses an empty query, a k out of 1-100 and a bad repository name', () => {
    expect(code(() => parseSearchParams(params('q=')))).toBe('QUERY_EMPTY');
    expect(code(() => parseSearchParams(params('repo=api')))).toBe('QUERY_EMPTY');
    for (const k of ['0', '101', '2.5', 'ten']) expect(code(() => parseSearchParams(params(`q=retry&k=${k}`)))).toBe('INVALID_ARGUMENT');
    expect(code(() => parseSearchParams(params('q=retry&repo=../x')))).toBe('INVALID_ARGUMENT');
  });
});

describe('search_text parameters', () => {
  it('reads the pattern, regex, case, paths and k', () => {
    expect(parseTextParams(params('q=ECONN&regex=1&case=0&path=src/**,lib&k=50&repo=api'))).toEqual({ pattern: 'ECONN', repos: ['api'], regex: true, caseSensitive: false, paths: ['src/**', 'lib'], limit: 50 });
    expect(parseTextParams(params('q=x'))).toEqual({ pattern: 'x', repos: undefined, regex: false, caseSensitive: undefined, paths: undefined, limit: 30 });
  });

  it('refuses an empty or over-long pattern and a k out of range', () => {
    expect(code(() => parseTextParams(params('q=')))).toBe('INVALID_ARGUMENT');
    expect(code(() => parseTextParams(params(`q=${'x'.repeat(1025)}`)))).toBe('INVALID_ARGUMENT');
    expect(code(() => parseTextParams(params('q=x&k=501')))).toBe('INVALID_ARGUMENT');
  });
});
