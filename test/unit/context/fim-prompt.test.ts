/**
 * The FIM completion prompt and indentation detection, counted with the real o200k tokenizer:
 * exact prompts for small inputs, trimming at line boundaries nearest the cursor, the prefix
 * share, and a budget property over random prefixes, suffixes and budgets.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FIM_TOKENS, renderFimPrompt, type FimPromptInput } from '../../../src/context/fim-prompt.js';
import { describeIndent, detectIndent } from '../../../src/context/indent-style.js';
import { loadTokenCounter, type TokenCounter } from '../../../src/context/tokens.js';
import { caught } from '../../helpers/caught.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});

const HEADER = `You are completing code. Produce only the code that belongs at the cursor. Do not add explanations.

Language: typescript
Indent: 2 spaces
File: src/a.ts

`;

/** The expected prompt for kept texts, written out independently of the implementation. */
function fim(prefix: string, suffix: string, header = HEADER): string {
  return `${header}<|fim_prefix|>${prefix}<|fim_suffix|>${suffix}<|fim_middle|>`;
}

function input(over: Partial<FimPromptInput>): FimPromptInput {
  return { path: 'src/a.ts', language: 'typescript', prefix: '', suffix: '', indent: { kind: 'spaces', width: 2 }, counter, maxTokens: 4096, ...over };
}

describe('renderFimPrompt: exact prompts', () => {
  it('renders header, markers and the whole code when it fits, markers touching the code', () => {
    const prefix = 'function f() {\n  return a';
    const suffix = ';\n}\n';
    const r = renderFimPrompt(input({ prefix, suffix, indent: undefined }));
    expect(r.prompt).toBe(
      `You are completing code. Produce only the code that belongs at the cursor. Do not add explanations.

Language: typescript
Indent: 2 spaces
File: src/a.ts

<|fim_prefix|>function f() {
  return a<|fim_suffix|>;
}
<|fim_middle|>`,
    );
    expect(r.truncated).toBe(false);
    expect(r.prefixKept).toEqual({ startLine: 1, endLine: 2, chars: prefix.length, cutInLine: false });
    expect(r.suffixKept).toEqual({ startLine: 1, endLine: 2, chars: suffix.length, cutInLine: false });
    expect(r.tokens).toBe(counter.count(r.prompt));
  });

  it('uses another dialect’s markers and shows control characters in path and language as spaces', () => {
    const tokens = { prefix: '<fim_prefix>', suffix: '<fim_suffix>', middle: '<fim_middle>' };
    const r = renderFimPrompt(input({ prefix: 'a', suffix: 'b', tokens, path: 'x\ny.py', language: 'py\rthon', indent: { kind: 'tabs' } }));
    expect(r.prompt).toBe(
      'You are completing code. Produce only the code that belongs at the cursor. Do not add explanations.\n\n' +
        'Language: py thon\nIndent: tabs\nFile: x y.py\n\n<fim_prefix>a<fim_suffix>b<fim_middle>',
    );
  });

  it('keeps the prefix lines nearest the cursor, whole, when the budget is tight', () => {
    const prefix = 'line one\nline two\nline three\n  cursor';
    const twoLines = renderFimPrompt(input({ prefix, maxTokens: counter.count(fim('line three\n  cursor', '')) }));
    expect(twoLines.prompt).toBe(fim('line three\n  cursor', ''));
    expect(twoLines.prefixKept).toEqual({ startLine: 3, endLine: 4, chars: 19, cutInLine: false });
    expect(twoLines.truncated).toBe(true);
    const oneLine = renderFimPrompt(input({ prefix, maxTokens: counter.count(fim('line three\n  cursor', '')) - 1 }));
    expect(oneLine.prompt).toBe(fim('  cursor', ''));
    expect(oneLine.prefixKept).toEqual({ startLine: 4, endLine: 4, chars: 8, cutInLine: false });
  });

  it('keeps the suffix lines nearest the cursor, whole, cutting from the end', () => {
    const suffix = '();\n  next();\n}\n';
    const r = renderFimPrompt(input({ suffix, maxTokens: counter.count(fim('', '();\n  next();\n')) }));
    expect(r.prompt).toBe(fim('', '();\n  next();\n'));
    expect(r.suffixKept).toEqual({ startLine: 1, endLine: 2, chars: 14, cutInLine: false });
  });

  it('cuts a cursor line that alone exceeds the budget at characters, keeping the end nearest the cursor', () => {
    const prefix = `first();\nconst x = [${'1, '.repeat(400)}`;
    const maxTokens = counter.count(fim('', '')) + 20;
    const r = renderFimPrompt(input({ prefix, maxTokens }));
    const kept = prefix.slice(prefix.length - r.prefixKept.chars);
    expect(r.prefixKept.cutInLine).toBe(true);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).not.toContain('\n');
    expect(r.prompt).toBe(fim(kept, ''));
    expect(r.tokens).toBeLessThanOrEqual(maxTokens);
    // it uses the 20 tokens left after the header (a token or two may go to BPE merges at the seams)
    expect(counter.count(kept)).toBeGreaterThanOrEqual(18);
  });

  it('cuts the suffix’s first line at characters, keeping its start', () => {
    const suffix = `${'x + '.repeat(300)}y;\nnext();\n`;
    const maxTokens = counter.count(fim('', '')) + 10;
    const r = renderFimPrompt(input({ suffix, maxTokens }));
    const kept = suffix.slice(0, r.suffixKept.chars);
    expect(r.suffixKept).toMatchObject({ startLine: 1, endLine: 1, cutInLine: true });
    expect(kept.startsWith('x + ')).toBe(true);
    expect(r.prompt).toBe(fim('', kept));
    expect(counter.count(kept)).toBeGreaterThanOrEqual(8);
  });
});

describe('renderFimPrompt: budget split', () => {
  const prefix = 'let a = 1;\n'.repeat(200) + 'let b = ';
  const suffix = '2;\n' + 'let c = 3;\n'.repeat(200);
  const fixed = (): number => counter.count(fim('', ''));
  const kept = (r: ReturnType<typeof renderFimPrompt>): [string, string] => [
    prefix.slice(prefix.length - r.prefixKept.chars),
    suffix.slice(0, r.suffixKept.chars),
  ];

  it('gives the prefix about three quarters by default and the suffix the rest', () => {
    const r = renderFimPrompt(input({ prefix, suffix, maxTokens: fixed() + 200 }));
    const [p, s] = kept(r);
    expect(counter.count(p)).toBeGreaterThanOrEqual(150 - 8);
    expect(counter.count(s)).toBeGreaterThan(20);
    expect(counter.count(s)).toBeLessThanOrEqual(50 + 8);
  });

  it('prefixShare 1 fills the budget with prefix; prefixShare 0 with suffix', () => {
    const all = renderFimPrompt(input({ prefix, suffix, maxTokens: fixed() + 100, prefixShare: 1 }));
    expect(counter.count(kept(all)[0])).toBeGreaterThanOrEqual(100 - 8);
    expect(kept(all)[1]).toBe('');
    const none = renderFimPrompt(input({ prefix, suffix, maxTokens: fixed() + 100, prefixShare: 0 }));
    expect(counter.count(kept(none)[1])).toBeGreaterThanOrEqual(100 - 8);
  });

  it('leaves a short suffix’s unused share to the prefix', () => {
    const r = renderFimPrompt(input({ prefix, suffix: ';\n}\n', maxTokens: fixed() + 100 }));
    expect(r.suffixKept.chars).toBe(4);
    expect(counter.count(kept(r)[0])).toBeGreaterThanOrEqual(100 - 4 - 8);
  });
});

describe('renderFimPrompt: errors', () => {
  it('throws TOO_LARGE when header and markers alone exceed maxTokens', () => {
    const fixed = counter.count(fim('', ''));
    const err = caught(() => renderFimPrompt(input({ prefix: 'x', maxTokens: fixed - 1 })));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.data).toMatchObject({ size: fixed, limit: fixed - 1, unit: 'tokens' });
    expect(renderFimPrompt(input({ prefix: 'x', maxTokens: fixed })).prompt).toBe(fim('', ''));
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects maxTokens %s as INVALID_ARGUMENT', (maxTokens) => {
    expect(caught(() => renderFimPrompt(input({ maxTokens }))).code).toBe('INVALID_ARGUMENT');
  });

  it('rejects a prefixShare outside 0..1 and an empty marker', () => {
    expect(caught(() => renderFimPrompt(input({ prefixShare: 1.5 }))).data).toMatchObject({ name: 'prefixShare' });
    expect(caught(() => renderFimPrompt(input({ tokens: { ...DEFAULT_FIM_TOKENS, middle: '' } }))).data).toMatchObject({ name: 'tokens.middle' });
  });
});

const lineArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.stringMatching(/^[ \t]{0,8}[a-z(){}=;.,`'" ]{0,50}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/\n/g, ' ')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', ' ', '日', '😀', 'ab'), fc.integer({ min: 50, max: 1500 })).map(([c, n]) => c.repeat(n)) },
);
const codeArb = fc.array(fc.tuple(lineArb, fc.constantFrom('\n', '\n', '\r\n')), { maxLength: 60 }).chain((lines) =>
  fc.boolean().map((end) => {
    const text = lines.map(([l, nl]) => l + nl).join('');
    return end ? text : text.replace(/\r?\n$/, '');
  }),
);

describe('renderFimPrompt: budget property', () => {
  it('never exceeds maxTokens and keeps only cursor-adjacent text, whole lines unless cut in the cursor line', () => {
    fc.assert(
      fc.property(codeArb, codeArb, fc.integer({ min: 0, max: 300 }), fc.double({ min: 0, max: 1, noNaN: true }), (prefix, suffix, extra, prefixShare) => {
        const maxTokens = counter.count(fim('', '')) + extra;
        const r = renderFimPrompt(input({ prefix, suffix, maxTokens, prefixShare }));
        const p = prefix.slice(prefix.length - r.prefixKept.chars);
        const s = suffix.slice(0, r.suffixKept.chars);
        expect(r.prompt).toBe(fim(p, s));
        expect(r.tokens).toBe(counter.count(r.prompt));
        expect(r.tokens).toBeLessThanOrEqual(maxTokens);
        expect(r.truncated).toBe(p !== prefix || s !== suffix);
        expect(r.prefixKept.startLine).toBe(prefix.slice(0, prefix.length - p.length).split('\n').length);
        expect(r.suffixKept.endLine).toBe(Math.max(1, s.replace(/\n$/, '').split('\n').length));
        // whole lines, or a cut inside the line at the cursor only
        const prefixAtLineStart = p === prefix || prefix[prefix.length - p.length - 1] === '\n';
        expect(r.prefixKept.cutInLine).toBe(p !== '' && !prefixAtLineStart);
        if (r.prefixKept.cutInLine) expect(p.slice(0, -1)).not.toContain('\n');
        const suffixAtLineEnd = s === suffix || s.endsWith('\n');
        expect(r.suffixKept.cutInLine).toBe(s !== '' && !suffixAtLineEnd);
        if (r.suffixKept.cutInLine) expect(s).not.toContain('\n');
      }),
      { numRuns: 100 },
    );
  });
});

describe('detectIndent', () => {
  it.each([
    ['tabs', 'function f() {\n\treturn 1;\n\tif (x) {\n\t\ty();\n\t}\n}\n', 'tabs'],
    ['two spaces', 'a {\n  b {\n    c\n  }\n}\n', '2 spaces'],
    ['four spaces with deeper alignment', 'def f():\n    x = g(a,\n          b)\n    if x:\n        return 1\n    return 2\n', '4 spaces'],
    ['JSDoc continuation lines are not indentation', '/**\n * doc\n * more\n */\nfunction f() {\n    return 1;\n}\n', '4 spaces'],
    ['one indented line: its width', 'x = [\n   1]\n', '3 spaces'],
    ['no indented line', 'a\nb\n\nc\n', 'unknown'],
    ['majority of tabs over spaces', 'a\n\tb\n\tc\n  d\n', 'tabs'],
    ['CRLF line endings', 'a {\r\n  b\r\n}\r\n', '2 spaces'],
  ])('%s', (_name, text, expected) => {
    expect(describeIndent(detectIndent(text))).toBe(expected);
  });

  it('describes one space in the singular', () => {
    expect(describeIndent({ kind: 'spaces', width: 1 })).toBe('1 space');
  });
});
