import { beforeAll, describe, expect, it } from 'vitest';
import type { ChunkConfig } from '../../../src/config/schema.js';
import { createFileParser, type FileParser } from '../../../src/parse/chunker.js';
import { loadGrammars } from '../../../src/parse/grammars.js';
import { parsedLanguages } from '../../../src/parse/languages/registry.js';

const CONFIG: ChunkConfig = { windowLines: 60, overlapLines: 8, maxBytes: 4096 };

let parser: FileParser;
beforeAll(async () => {
  parser = createFileParser(CONFIG, await loadGrammars(parsedLanguages()));
});

/** The text of each comment and docstring range the parser reports for `source`. */
function docTexts(language: string, source: string): string[] {
  const parsed = parser.parse({ path: `x.${language}`, language, contentType: 'code', text: source });
  expect(parsed.parser).toBe('tree-sitter');
  const bytes = Buffer.from(source);
  return (parsed.docs ?? []).map(([s, e]) => bytes.subarray(s, e).toString('utf8'));
}

describe('comment and docstring ranges (the FTS doc field)', () => {
  it('Python: docstrings of module, class and function, and # comments; not strings in code', () => {
    const src = [
      '"""Module docstring."""',
      'import os',
      '',
      'GREETING = "not a docstring"',
      '',
      'class Greeter:',
      '    """Says hello."""',
      '',
      '    def greet(self, name):',
      "        '''Return a greeting for ✓ name.'''",
      '        # build the text',
      '        return f"hi {name}"  # trailing',
      '',
    ].join('\n');
    expect(docTexts('python', src)).toEqual(['"""Module docstring."""', '"""Says hello."""', "'''Return a greeting for ✓ name.'''", '# build the text', '# trailing']);
  });

  it('TypeScript: JSDoc, line and block comments; not comment-like text inside strings', () => {
    const src = '/** Parses ✓ the config. */\nexport function parse(a: string): number {\n  // count words\n  return a.length; /* block */\n}\nconst s = "// not a comment";\n';
    expect(docTexts('typescript', src)).toEqual(['/** Parses ✓ the config. */', '// count words', '/* block */']);
  });

  it('Go, Rust, Java, C, Ruby: the grammar’s comment node types', () => {
    expect(docTexts('go', 'package p\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n')).toEqual(['// Add adds.']);
    expect(docTexts('rust', '/// Adds two.\nfn add(a: i32) -> i32 {\n    a /* x */\n}\n')).toEqual(['/// Adds two.\n', '/* x */']);
    expect(docTexts('java', 'class A {\n  /** Adds. */\n  int add(int a) { return a; } // done\n}\n')).toEqual(['/** Adds. */', '// done']);
    expect(docTexts('c', '/* Adds. */\nint add(int a) { return a; }\n')).toEqual(['/* Adds. */']);
    expect(docTexts('ruby', "# Adds.\ndef add(a)\n  a\nend\n")).toEqual(['# Adds.']);
  });

  it('ranges are sorted and disjoint, in UTF-8 bytes', () => {
    const src = '// é\n/* ü */ const a = 1; // ✓\n';
    const parsed = parser.parse({ path: 'x.ts', language: 'typescript', contentType: 'code', text: src });
    const docs = parsed.docs ?? [];
    expect(docs).toHaveLength(3);
    for (let i = 1; i < docs.length; i++) expect(docs[i]![0]).toBeGreaterThanOrEqual(docs[i - 1]![1]);
    expect(docs[docs.length - 1]![1]).toBe(Buffer.byteLength(src) - 1);
  });

  it("chunk.inlineComments 'body' leaves comments inside function bodies out; doc comments and docstrings stay", async () => {
    const inline = createFileParser({ ...CONFIG, inlineComments: 'body' }, await loadGrammars(['typescript', 'python']));
    const texts = (language: string, source: string): string[] => {
      const bytes = Buffer.from(source);
      return (inline.parse({ path: 'x', language, contentType: 'code', text: source }).docs ?? []).map(([s, e]) => bytes.subarray(s, e).toString('utf8'));
    };
    const ts = '/** Parses. */\nexport function parse(a: string): number {\n  // count words\n  return a.length;\n}\nclass A {\n  // a field\n  x = 1;\n  /** Runs. */\n  run() {\n    /* inside */\n  }\n}\n';
    expect(texts('typescript', ts)).toEqual(['/** Parses. */', '// a field', '/** Runs. */']);
    expect(docTexts('typescript', ts)).toEqual(['/** Parses. */', '// count words', '// a field', '/** Runs. */', '/* inside */']);
    const py = 'def f():\n    """Doc."""\n    # inside\n    return 1\n# after\n';
    expect(texts('python', py)).toEqual(['"""Doc."""', '# after']);
  });

  it('files without a grammar have no doc ranges', () => {
    expect(parser.parse({ path: 'a.md', language: 'markdown', contentType: 'docs', text: '# T\n<!-- c -->\n' }).docs).toBeUndefined();
  });
});
