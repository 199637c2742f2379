import { describe, expect, it } from 'vitest';
import { compoundsByLine, identifierParts, isCompoundIdentifier, partsOfLines, pathTerms, splitIdentifier, stemTerms } from '../../../src/core/code-tokens.js';

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

describe('compoundsByLine / partsOfLines', () => {
  it('indexes compound identifiers per line and gives a chunk the distinct parts of its lines', () => {
    const text = 'const userName = 1;\nplain words only\ngetUserName(userName); x_y_z\n\nparseHTTP2Response()';
    const byLine = compoundsByLine(text);
    expect(byLine).toEqual([['user name'], [], ['get user name', 'user name', 'x y z'], [], ['parse http 2 response']]);
    expect(partsOfLines(byLine, 0, 2)).toBe('user name ; get user name ; x y z');
    expect(partsOfLines(byLine, 3, 9)).toBe('parse http 2 response');
  });

  it('agrees with identifierParts on the words it finds', () => {
    const text = 'function loadConfigFile(pathName) {\n  return readFileSync(pathName, "utf8").trim_end;\n}';
    const fromLines = new Set(partsOfLines(compoundsByLine(text), 0, 2).split(' ; '));
    expect(fromLines).toEqual(new Set(identifierParts(text).split(' ; ')));
  });
});
