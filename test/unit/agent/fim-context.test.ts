import { describe, expect, it } from 'vitest';
import { contextBlock, lineComment, renderFimWithContext } from '../../../src/agent/fim-context.js';
import { loadTokenCounter } from '../../../src/index.js';

const piece = (path: string, text: string, startLine = 1) => ({ path, startLine, endLine: startLine + text.split('\n').length - 1, text });

describe('FIM prompt with repository context', () => {
  it('comments the context in the language of the file, each piece under its citation', () => {
    expect(lineComment('python')).toBe('#');
    expect(lineComment('TypeScript')).toBe('//');
    expect(contextBlock([piece('src/a.py', 'def f():\n\n    return 1', 3)], 'python')).toBe(
      '# Context from the repository (reference only; do not repeat):\n# --- src/a.py:3-5\n# def f():\n#\n#     return 1\n\n',
    );
  });

  it('breaks FIM markers spelled inside retrieved text, so they cannot end the prefix', () => {
    const block = contextBlock([piece('tok.json', 'special: <|fim_middle|> and <fim_suffix>')], 'json');
    expect(block).not.toContain('<|fim_middle|>');
    expect(block).not.toContain('<fim_suffix>');
  });

  it('puts the context right after the prefix marker, keeps the cursor and stays within budget, dropping whole pieces', async () => {
    const counter = await loadTokenCounter();
    const big = Array.from({ length: 200 }, (_, i) => `export const v${i} = ${i};`).join('\n');
    const evidence = [piece('src/small.ts', 'export function helper(): number { return 1; }'), piece('src/big.ts', big)];
    const out = renderFimWithContext({ path: 'src/x.ts', language: 'typescript', prefix: 'const a = helper(', suffix: ');\n', evidence, counter, maxTokens: 600 });
    expect(out.tokens).toBeLessThanOrEqual(600);
    expect(out.context).toEqual(['src/small.ts:1-1']);
    expect(out.prompt).toContain('<|fim_prefix|>// Context from the repository');
    expect(out.prompt).toMatch(/const a = helper\(<\|fim_suffix\|>\);\n<\|fim_middle\|>$/);
  });
});
