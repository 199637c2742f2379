import { describe, expect, it } from 'vitest';
import { identifierParts, isCompoundIdentifier, pathTerms, splitIdentifier, stemTerms } from '../../../src/core/code-tokens.js';

describe('splitIdentifier', () => {
  it.each([
    ['getUserName', ['get', 'user', 'name']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['parseHTTPResponse2', ['parse', 'http', 'response', '2']],
    ['base64Encode', ['base', '64', 'encode']],
    ['user_name', ['user', 'name']],
    ['__init__', ['init']],
    ['MAX_FILE_BYTES', ['max', 'file', 'bytes']],
    ['kebab-case-name', ['kebab', 'case', 'name']],
    ['$scope', ['scope']],
    ['simple', ['simple']],
  ])('%s → %j', (input, expected) => {
    expect(splitIdentifier(input)).toEqual(expected);
  });
});

describe('isCompoundIdentifier', () => {
  it('detects word boundaries and ignores single words', () => {
    expect(isCompoundIdentifier('getUser')).toBe(true);
    expect(isCompoundIdentifier('snake_case')).toBe(true);
    expect(isCompoundIdentifier('utf8')).toBe(true);
    expect(isCompoundIdentifier('HTTPServer')).toBe(true);
    expect(isCompoundIdentifier('plain')).toBe(false);
    expect(isCompoundIdentifier('URL')).toBe(false);
    expect(isCompoundIdentifier('_private')).toBe(false);
  });
});

describe('identifierParts', () => {
  it('emits each distinct compound identifier once, in order', () => {
    expect(identifierParts('const userName = getUserName(userName); plain words here')).toBe('user name ; get user name');
  });
  it('is empty for prose', () => {
    expect(identifierParts('just some prose without identifiers')).toBe('');
  });
});

describe('path terms', () => {
  it('splits segments and keeps whole compound segments', () => {
    expect(pathTerms('src/search/ftsQuery.test.ts')).toBe('src search fts query ftsquery test ts');
    expect(stemTerms('src/store/writer-lock.ts')).toBe('writer lock');
    expect(stemTerms('Makefile')).toBe('makefile');
  });
});
