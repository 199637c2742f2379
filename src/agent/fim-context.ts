/**
 * The FIM prompt with repository context (seed 004 §10.2, §18.3; RepoCoder, seed 004 §8.5):
 * retrieved code is put at the head of the prefix as line comments in the file's language, so a
 * FIM-trained model reads it as earlier text of the same file, and the real prefix and suffix
 * keep the lines nearest the cursor (`renderFimPrompt`). Pure.
 */
import { DEFAULT_FIM_TOKENS, EngineError, renderFimPrompt, type Evidence, type FimPrompt, type TokenCounter } from '../index.js';

/** Languages whose line comment is not `//`. */
const LINE_COMMENT: Readonly<Record<string, string>> = {
  python: '#',
  ruby: '#',
  bash: '#',
  shell: '#',
  yaml: '#',
  toml: '#',
  r: '#',
  perl: '#',
  elixir: '#',
  julia: '#',
  make: '#',
  dockerfile: '#',
  sql: '--',
  lua: '--',
  haskell: '--',
  elm: '--',
  clojure: ';;',
  lisp: ';;',
  erlang: '%',
  latex: '%',
};

/** The line-comment marker of a language (`//` when unknown). */
export function lineComment(language: string): string {
  return LINE_COMMENT[language.toLowerCase()] ?? '//';
}

/**
 * Retrieved text spelling a FIM marker (`<|fim_middle|>` in a tokenizer's source, a prompt file)
 * would end the prefix early: the marker is broken with a zero-width space.
 */
function defuseMarkers(line: string): string {
  return line.replace(/<\|(fim_[a-z]+|endoftext|file_sep|repo_name)\|>/g, '<\u200b|$1|>').replace(/<(fim_[a-z]+)>/g, '<\u200b$1>');
}

/** The context pieces as one comment block, each headed by its citation. */
export function contextBlock(evidence: readonly Evidence[], language: string): string {
  if (evidence.length === 0) return '';
  const c = lineComment(language);
  const parts = evidence.map((e) => [`${c} --- ${e.path}:${e.startLine}-${e.endLine}`, ...e.text.replace(/\n$/, '').split('\n').map((l) => (l === '' ? c : `${c} ${defuseMarkers(l)}`))].join('\n'));
  return `${c} Context from the repository (reference only; do not repeat):\n${parts.join('\n')}\n\n`;
}

export interface FimWithContextInput {
  readonly path: string;
  readonly language: string;
  readonly prefix: string;
  readonly suffix: string;
  /** Retrieved code, best first; the tail is dropped whole to fit. */
  readonly evidence: readonly Evidence[];
  readonly counter: TokenCounter;
  /** Budget of the whole prompt. */
  readonly maxTokens: number;
  /** Share of `maxTokens` the context may take. Default 0.35. */
  readonly contextShare?: number;
}

export interface FimWithContext extends FimPrompt {
  /** Citations of the context pieces in the prompt, in order. */
  readonly context: readonly string[];
}

/**
 * Renders the FIM prompt with as much of the evidence (best first, whole pieces) as fits in
 * `contextShare` of the budget; the code around the cursor gets the rest. The whole prompt
 * counts `<= maxTokens` (checked on the final text).
 */
export function renderFimWithContext(input: FimWithContextInput): FimWithContext {
  const share = input.contextShare ?? 0.35;
  const budget = Math.floor(input.maxTokens * share);
  let kept: Evidence[] = [];
  for (const e of input.evidence) {
    const next = [...kept, e];
    if (input.counter.count(contextBlock(next, input.language)) <= budget) kept = next;
  }
  for (;;) {
    const block = contextBlock(kept, input.language);
    const blockTokens = block === '' ? 0 : input.counter.count(block);
    const fim = renderFimPrompt({ path: input.path, language: input.language, prefix: input.prefix, suffix: input.suffix, counter: input.counter, maxTokens: input.maxTokens - blockTokens });
    const at = fim.prompt.indexOf(DEFAULT_FIM_TOKENS.prefix);
    if (at === -1) throw new EngineError('INTERNAL', { reason: 'the FIM prompt has no prefix marker' });
    const cut = at + DEFAULT_FIM_TOKENS.prefix.length;
    const prompt = `${fim.prompt.slice(0, cut)}${block}${fim.prompt.slice(cut)}`;
    const tokens = input.counter.count(prompt);
    // BPE merges at the seam may cost a token: drop the last piece and try again
    if (tokens <= input.maxTokens || kept.length === 0) {
      return { ...fim, prompt, tokens, context: kept.map((e) => `${e.path}:${e.startLine}-${e.endLine}`) };
    }
    kept = kept.slice(0, -1);
  }
}
