/**
 * The chat prompt templates (repo Q&A, explain diagnostic, refactor), the system prompt, the
 * tool-use nudge and the decoding presets: exact texts for small inputs, and budget properties
 * counted with the real o200k tokenizer (never over budget, required parts never dropped, every
 * kept piece cited, fences never closed by the content).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECODING_PRESETS } from '../../../src/context/decoding-presets.js';
import {
  renderExplainDiagnosticPrompt,
  renderRefactorPrompt,
  renderRepoQaPrompt,
  renderSystemPrompt,
  SYSTEM_PROMPT,
  TOOL_NUDGE,
  type ChatPrompt,
  type Evidence,
} from '../../../src/context/prompt-templates.js';
import { loadTokenCounter, type TokenCounter } from '../../../src/context/tokens.js';
import { TOOLS } from '../../../src/tools/catalog.js';
import { caught } from '../../helpers/caught.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});

const BIG = 1_000_000;
const ev = (path: string, startLine: number, endLine: number, text: string, extra: Partial<Evidence> = {}): Evidence => ({ path, startLine, endLine, text, ...extra });

describe('system prompt and nudge', () => {
  it('keeps the seed’s hard rules and the JSON tool-call protocol by default', () => {
    expect(SYSTEM_PROMPT).toBe(renderSystemPrompt({ toolCalls: 'json' }));
    expect(SYSTEM_PROMPT).toContain(
      '- Do NOT guess file contents. If you need code, use tools like read_file, search_text, search_symbols, retrieve_context.\n',
    );
    expect(SYSTEM_PROMPT).toContain('  {"type":"tool_call","calls":[{"id":"call_1","name":"tool_name","arguments":{...}}]}\n');
    expect(renderSystemPrompt({ toolCalls: 'native' })).not.toContain('"type":"tool_call"');
    expect(renderSystemPrompt({ toolCalls: 'native' })).toContain('Call tools through the tool interface');
  });

  it('names only tools that are in the catalogue', () => {
    const names = new Set(TOOLS.map((t) => t.name));
    const texts = [renderSystemPrompt({ toolCalls: 'json' }), renderSystemPrompt({ toolCalls: 'native' }), TOOL_NUDGE];
    const user = renderRefactorPrompt({ instruction: 'x', target: { path: 'a', text: 'a' }, counter, maxTokens: BIG }).user;
    const qa = renderRepoQaPrompt({ question: 'q', counter, maxTokens: BIG }).user;
    const explain = renderExplainDiagnosticPrompt({ diagnostic: { path: 'a', line: 1, message: 'm' }, counter, maxTokens: BIG }).user;
    const mentioned = [...texts, user, qa, explain].join('\n').match(/\b(?:search|read|list|get|retrieve|index|apply|find)_[a-z_*]+/g) ?? [];
    expect(mentioned.length).toBeGreaterThan(5);
    for (const name of mentioned) {
      if (name.endsWith('_*')) expect([...names].some((n) => n.startsWith(name.slice(0, -1)))).toBe(true);
      else expect(names.has(name), name).toBe(true);
    }
  });
});

describe('decoding presets', () => {
  it('holds the seed’s values per task, frozen', () => {
    expect(DECODING_PRESETS).toEqual({
      completion: { temperature: 0.2, top_p: 0.9, max_tokens: 128, stop: ['\n\n'], repeat_penalty: 1.05 },
      qa: { temperature: 0.2, top_p: 0.9, max_tokens: 512, stop: [] },
      explain: { temperature: 0.1, top_p: 0.9, max_tokens: 512, stop: [] },
      refactor: { temperature: 0.1, top_p: 0.9, max_tokens: 512, stop: [] },
    });
    expect(Object.isFrozen(DECODING_PRESETS)).toBe(true);
    expect(Object.isFrozen(DECODING_PRESETS.completion)).toBe(true);
    expect(Object.isFrozen(DECODING_PRESETS.completion.stop)).toBe(true);
  });
});

const ANSWER = `Answer with:
- a short direct answer
- then 2-6 bullet points of supporting evidence, each referencing file path + line range (path:start-end) if available`;

describe('renderRepoQaPrompt', () => {
  it('renders cited evidence blocks, with fences longer than the backtick runs inside', () => {
    const r = renderRepoQaPrompt({
      question: 'Where is the config loaded?',
      currentFile: 'src/cli/main.ts',
      evidence: [ev('src/config/load.ts', 10, 12, 'export function load() {\n  return read("```");\n}', { hash: 'ab12', language: 'ts' }), ev('README.md', 3, 3, 'Config lives in `scry.json`.\n')],
      counter,
      maxTokens: BIG,
    });
    expect(r.user).toBe(`${TOOL_NUDGE}

User question:
Where is the config loaded?

Current file: src/cli/main.ts

Evidence from the repository (best first; may be partial):

[1] src/config/load.ts:10-12 (hash ab12)
\`\`\`\`ts
export function load() {
  return read("\`\`\`");
}
\`\`\`\`

[2] README.md:3-3
\`\`\`
Config lives in \`scry.json\`.
\`\`\`

Use this evidence first. If it is not enough, call retrieve_context with a focused query derived from the question and current file, or read_file for specific slices.

${ANSWER}`);
    expect(r.system).toBe(SYSTEM_PROMPT);
    expect(r.messages).toEqual([
      { role: 'system', content: r.system },
      { role: 'user', content: r.user },
    ]);
    expect(r.cited).toEqual(['src/config/load.ts:10-12', 'README.md:3-3']);
    expect(r.omitted).toEqual([]);
    expect(r.tokens).toBe(counter.count(r.system) + counter.count(r.user));
  });

  it('without evidence asks the model to gather it first (seed §18.5 wording)', () => {
    const r = renderRepoQaPrompt({ question: 'How are chunks hashed?', nudge: false, system: 'S', counter, maxTokens: BIG });
    expect(r.system).toBe('S');
    expect(r.user).toBe(`User question:
How are chunks hashed?

You must gather evidence from the repo before answering.
Call retrieve_context with a focused query derived from the question and current file.
If more detail is needed, call read_file for specific slices.

${ANSWER}`);
  });

  it('drops evidence whole, best first kept, and reports the omitted labels', () => {
    const small = ev('a.ts', 1, 1, 'const a = 1;');
    const huge = ev('big.ts', 1, 400, 'const filler = 0;\n'.repeat(400));
    const tail = ev('c.ts', 5, 6, 'c();\nd();');
    const base = renderRepoQaPrompt({ question: 'q?', evidence: [small], counter, maxTokens: BIG }).tokens;
    const r = renderRepoQaPrompt({ question: 'q?', evidence: [small, huge, tail], counter, maxTokens: base + 40 });
    expect(r.cited).toEqual(['a.ts:1-1', 'c.ts:5-6']);
    expect(r.omitted).toEqual(['big.ts:1-400']);
    expect(r.user).toContain('[2] c.ts:5-6\n```\nc();\nd();\n```');
    expect(r.user).not.toContain('filler');
  });

  it('throws TOO_LARGE when system and question alone do not fit, INVALID_ARGUMENT for bad input', () => {
    const fixed = renderRepoQaPrompt({ question: 'q?', counter, maxTokens: BIG }).tokens;
    const err = caught(() => renderRepoQaPrompt({ question: 'q?', evidence: [ev('a', 1, 1, 'x')], counter, maxTokens: fixed - 1 }));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.data).toMatchObject({ size: fixed, limit: fixed - 1 });
    expect(renderRepoQaPrompt({ question: 'q?', evidence: [ev('a', 1, 1, 'x')], counter, maxTokens: fixed }).omitted).toEqual(['a:1-1']);
    expect(caught(() => renderRepoQaPrompt({ question: '  ', counter, maxTokens: BIG })).data).toMatchObject({ name: 'question' });
    expect(caught(() => renderRepoQaPrompt({ question: 'q', evidence: [ev('a', 5, 4, '')], counter, maxTokens: BIG })).data).toMatchObject({ name: 'evidence[0]' });
    expect(caught(() => renderRepoQaPrompt({ question: 'q', counter, maxTokens: 0 })).code).toBe('INVALID_ARGUMENT');
  });
});

describe('renderExplainDiagnosticPrompt', () => {
  it('renders the seed §18.4 template with the diagnostic as one JSON line', () => {
    const r = renderExplainDiagnosticPrompt({
      diagnostic: { path: 'src/a.ts', line: 7, column: 3, severity: 'error', code: 'TS2345', source: 'tsc', message: 'Argument of type "string"\nis not assignable' },
      language: 'typescript',
      evidence: [ev('src/a.ts', 5, 8, 'function f(n: number) {}\n\nf("x");\n')],
      counter,
      maxTokens: BIG,
    });
    expect(r.user).toBe(`You are helping diagnose a build/lint issue.

Context:
- Language: typescript
- File: src/a.ts
- Diagnostics:
{"path":"src/a.ts","line":7,"column":3,"severity":"error","code":"TS2345","source":"tsc","message":"Argument of type \\"string\\"\\nis not assignable"}

Relevant code (may be partial):
[1] src/a.ts:5-8
\`\`\`
function f(n: number) {}

f("x");
\`\`\`

Task:
1) Explain the likely cause in 2-4 sentences.
2) Provide the smallest safe fix.
3) If the fix requires other files or definitions, call tools first.
If you propose a fix, output it as a unified diff.`);
  });

  it('without code points the model at the diagnostic’s lines', () => {
    const r = renderExplainDiagnosticPrompt({ diagnostic: { path: 'b.py', line: 2, message: 'E999' }, nudge: true, counter, maxTokens: BIG });
    expect(r.user.startsWith(`${TOOL_NUDGE}\n\nYou are helping diagnose`)).toBe(true);
    expect(r.user).toContain('- File: b.py\n- Diagnostics:\n{"path":"b.py","line":2,"message":"E999"}\n');
    expect(r.user).toContain('Relevant code (may be partial):\n(none included; call read_file for the lines around b.py:2)\n');
  });
});

describe('renderRefactorPrompt', () => {
  it('renders the seed §18.6 template, the target cited first, related code after', () => {
    const r = renderRefactorPrompt({
      instruction: 'Extract the retry loop into a helper.',
      target: { path: 'src/net.ts', text: 'for (;;) {\n  try { return await f(); } catch {}\n}\n', startLine: 40, language: 'ts' },
      evidence: [ev('src/util.ts', 1, 2, 'export const sleep = (ms: number) =>\n  new Promise((r) => setTimeout(r, ms));')],
      counter,
      maxTokens: BIG,
    });
    expect(r.user).toBe(`You are proposing a refactor. Make minimal changes.

Goal:
Extract the retry loop into a helper.

Constraints:
- Keep behavior identical unless stated otherwise.
- Prefer small diffs.
- If you need more context, call retrieve_context or read_file.
- Output only a unified diff.

Current file context:
src/net.ts:40-42
\`\`\`ts
for (;;) {
  try { return await f(); } catch {}
}
\`\`\`

Related code (may be partial):

[1] src/util.ts:1-2
\`\`\`
export const sleep = (ms: number) =>
  new Promise((r) => setTimeout(r, ms));
\`\`\``);
    expect(r.cited).toEqual(['src/net.ts:40-42', 'src/util.ts:1-2']);
  });

  it('never drops the target: TOO_LARGE when it does not fit', () => {
    const target = { path: 'a.ts', text: 'x = 1;\n'.repeat(200) };
    const fits = renderRefactorPrompt({ instruction: 'rename x', target, counter, maxTokens: BIG }).tokens;
    expect(renderRefactorPrompt({ instruction: 'rename x', target, evidence: [ev('b', 1, 1, 'y')], counter, maxTokens: fits }).omitted).toEqual(['b:1-1']);
    expect(caught(() => renderRefactorPrompt({ instruction: 'rename x', target, counter, maxTokens: fits - 1 })).code).toBe('TOO_LARGE');
  });
});

/** Every `[n] label` block in `user`, read the way CommonMark closes a backtick fence. */
function fencedBlocks(user: string): { label: string; info: string; body: string }[] {
  const lines = user.split('\n');
  const blocks: { label: string; info: string; body: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^\[\d+\] (.+?)(?: \(hash .*\))?$/.exec(lines[i]!);
    const open = head ? /^(`{3,})([^`]*)$/.exec(lines[i + 1] ?? '') : null;
    if (!head || !open) continue;
    const close = new RegExp(`^ {0,3}\`{${open[1]!.length},}[ \\t\\r]*$`);
    let j = i + 2;
    while (j < lines.length && !close.test(lines[j]!)) j++;
    expect(j, `fence of ${head[1]} is closed`).toBeLessThan(lines.length);
    blocks.push({ label: head[1]!, info: open[2]!, body: lines.slice(i + 2, j).join('\n') });
    i = j;
  }
  return blocks;
}

const textArb: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[ a-z(){};=`~]{0,40}$/),
      fc.constantFrom('```', '````', '```ts', '~~~', '   ```', '`', '[1] fake.ts:1-2', ''),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
    ),
    { maxLength: 25 },
  )
  .map((lines) => lines.join('\n'));
const evidenceItemArb = fc
  .record({
    path: fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}\.(ts|md|py)$/),
    startLine: fc.integer({ min: 1, max: 500 }),
    span: fc.integer({ min: 0, max: 40 }),
    text: textArb,
  })
  .map(({ path, startLine, span, text }) => ev(path, startLine, startLine + span, text));
/** Evidence lists with distinct paths, so every citation label names one piece. */
const evidenceArb = (maxLength: number, minLength = 0): fc.Arbitrary<Evidence[]> =>
  fc.uniqueArray(evidenceItemArb, { minLength, maxLength, selector: (e) => e.path });

/** The invariants every chat render keeps; `leading` is how many cited labels are not evidence (the refactor target). */
function checkChat(r: ChatPrompt, evidence: readonly Evidence[], maxTokens: number, required: string, leading = 0): void {
  expect(r.tokens).toBe(counter.count(r.system) + counter.count(r.user));
  expect(r.tokens).toBeLessThanOrEqual(maxTokens);
  expect(r.user).toContain(required);
  const labels = evidence.map((e) => `${e.path}:${e.startLine}-${e.endLine}`);
  const cited = new Set(r.cited.slice(leading));
  expect(r.cited.slice(leading)).toEqual(labels.filter((l) => cited.has(l)));
  expect(r.omitted).toEqual(labels.filter((l) => !cited.has(l)));
  // each kept piece is shown verbatim, in order, under its citation, inside a fence it cannot close
  const kept = evidence.filter((_, i) => cited.has(labels[i]!));
  expect(fencedBlocks(r.user).map(({ label, body }) => ({ label, body }))).toEqual(
    kept.map((e) => ({ label: `${e.path}:${e.startLine}-${e.endLine}`, body: e.text.replace(/\n$/, '') })),
  );
}

describe('chat templates: budget properties', () => {
  it('repo Q&A: never over budget, question kept, kept evidence cited and fenced intact', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }).filter((q) => q.trim() !== ''), evidenceArb(8), fc.integer({ min: 0, max: 600 }), (question, evidence, extra) => {
        const fixed = renderRepoQaPrompt({ question, counter, maxTokens: BIG }).tokens;
        const r = renderRepoQaPrompt({ question, evidence, counter, maxTokens: fixed + extra });
        checkChat(r, evidence, fixed + extra, `User question:\n${question}\n`);
      }),
      { numRuns: 60 },
    );
  });

  it('explain diagnostic: the diagnostic survives any budget that fits the fixed part, as parseable JSON', () => {
    const diagArb = fc.record({ path: fc.stringMatching(/^[a-z]{1,8}\.ts$/), line: fc.integer({ min: 1, max: 999 }), message: fc.string({ minLength: 1, maxLength: 120 }).filter((m) => m.trim() !== '') });
    fc.assert(
      fc.property(diagArb, evidenceArb(6), fc.integer({ min: 0, max: 500 }), (diagnostic, evidence, extra) => {
        const fixed = renderExplainDiagnosticPrompt({ diagnostic, counter, maxTokens: BIG }).tokens;
        const r = renderExplainDiagnosticPrompt({ diagnostic, evidence, counter, maxTokens: fixed + extra });
        const json = r.user.split('\n')[5]!;
        expect(JSON.parse(json)).toEqual(diagnostic);
        checkChat(r, evidence, fixed + extra, json);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps everything at exactly the full size and drops something one token below it', () => {
    fc.assert(
      fc.property(evidenceArb(6, 1), (evidence) => {
        const full = renderRefactorPrompt({ instruction: 'tidy', target: { path: 't.ts', text: 'x' }, evidence, counter, maxTokens: BIG });
        const exact = renderRefactorPrompt({ instruction: 'tidy', target: { path: 't.ts', text: 'x' }, evidence, counter, maxTokens: full.tokens });
        expect(exact).toEqual(full);
        const under = renderRefactorPrompt({ instruction: 'tidy', target: { path: 't.ts', text: 'x' }, evidence, counter, maxTokens: full.tokens - 1 });
        expect(under.omitted.length).toBeGreaterThan(0);
        checkChat(under, evidence, full.tokens - 1, 'Goal:\ntidy\n', 1);
      }),
      { numRuns: 30 },
    );
  });
});
