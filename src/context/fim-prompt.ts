/**
 * The fill-in-the-middle completion prompt (seed §18.3, Granite/Qwen-style FIM): a short header with
 * language, indentation and path, then `<|fim_prefix|>PREFIX<|fim_suffix|>SUFFIX<|fim_middle|>`.
 * The code spans are trimmed to a token budget at line boundaries, keeping the lines nearest the
 * cursor. Pure: the caller owns the tokenizer (`TokenCounter`) and the model call.
 */
import { EngineError } from '../core/errors.js';
import { describeIndent, detectIndent, type IndentStyle } from './indent-style.js';
import { checkMaxTokens, fixedPartTooLarge, oneLine } from './prompt-blocks.js';
import type { TokenCounter } from './tokens.js';

/** The three FIM marker strings of a model's dialect. */
export interface FimTokens {
  readonly prefix: string;
  readonly suffix: string;
  readonly middle: string;
}

/** Qwen2.5-Coder / Granite-style markers; StarCoder-style models use `<fim_prefix>` and friends. */
export const DEFAULT_FIM_TOKENS: FimTokens = Object.freeze({
  prefix: '<|fim_prefix|>',
  suffix: '<|fim_suffix|>',
  middle: '<|fim_middle|>',
});

/** Share of the code budget reserved for the prefix (text before the cursor) by default. */
export const DEFAULT_PREFIX_SHARE = 0.75;

/**
 * Most characters per token assumed when choosing how much text to tokenize: only the last
 * (prefix) or first (suffix) `budget * 32` characters are considered, which bounds the work on
 * very large files. Only pathological text (long runs of one repeated character) packs denser.
 */
const MAX_CHARS_PER_TOKEN = 32;

/** Inputs of `renderFimPrompt`. */
export interface FimPromptInput {
  /** Path relative to the project root, shown in the header. */
  readonly path: string;
  /** Language name shown in the header (e.g. `typescript`). */
  readonly language: string;
  /** The file text before the cursor. Line numbers in `prefixKept` count from its first line. */
  readonly prefix: string;
  /** The file text after the cursor. Line 1 of `suffixKept` is the cursor line. */
  readonly suffix: string;
  /** Indentation for the header; detected from `prefix + suffix` when absent (`unknown` if none). */
  readonly indent?: IndentStyle;
  /** Counts tokens; the whole prompt is guaranteed to count `<= maxTokens` with it. */
  readonly counter: TokenCounter;
  /** Token budget for the whole prompt (header and markers included). */
  readonly maxTokens: number;
  /**
   * Share (0..1) of the tokens left after the header that the prefix may take before the suffix
   * gets any; a side that needs less leaves the rest to the other. Default 0.75.
   */
  readonly prefixShare?: number;
  /** FIM markers of another dialect; default `DEFAULT_FIM_TOKENS`. */
  readonly tokens?: FimTokens;
}

/** Which part of the prefix or suffix made it into the prompt. */
export interface FimKept {
  /** First line kept, 1-based within the given text (for a prefix with nothing kept: its last line). */
  readonly startLine: number;
  /** Last line kept, 1-based within the given text (for a suffix with nothing kept: 1). */
  readonly endLine: number;
  /** UTF-16 length of the kept text (0 when nothing was kept). */
  readonly chars: number;
  /** True when the kept text starts (prefix) or ends (suffix) inside a line. */
  readonly cutInLine: boolean;
}

/** The rendered FIM prompt and what was kept. */
export interface FimPrompt {
  readonly prompt: string;
  /** The kept tail of the prefix: always ends at the cursor. */
  readonly prefixKept: FimKept;
  /** The kept head of the suffix: always starts at the cursor. */
  readonly suffixKept: FimKept;
  /** True when any prefix or suffix text was left out. */
  readonly truncated: boolean;
  /** `counter.count(prompt)`, never above `maxTokens`. */
  readonly tokens: number;
}

/** The instruction line of the header (seed §18.3). */
export const FIM_INSTRUCTION = 'You are completing code. Produce only the code that belongs at the cursor. Do not add explanations.';

/** Lines with their `\n`; no empty piece after a final newline. */
function lineSpans(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Largest n in [0, hi] with ok(n), assuming ok is monotone and ok(0) holds. */
function largest(hi: number, ok: (n: number) => boolean): number {
  let lo = 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The longest part of `text` at its cursor end (`fromEnd`: its tail, else its head) counting
 * `<= budget` tokens: whole lines when at least one fits, else characters of the cursor line.
 */
function keepNearCursor(text: string, budget: number, counter: TokenCounter, fromEnd: boolean): string {
  if (budget <= 0 || text === '') return '';
  const window = fromEnd ? text.slice(-budget * MAX_CHARS_PER_TOKEN) : text.slice(0, budget * MAX_CHARS_PER_TOKEN);
  if (window.length === text.length && counter.count(text) <= budget) return text;
  const spans = lineSpans(text);
  // the window may start mid-line: never offer that partial line as a whole one
  const spansInWindow = Math.max(1, lineSpans(window).length - (window.length < text.length ? 1 : 0));
  const take = (n: number): string => (fromEnd ? spans.slice(spans.length - n) : spans.slice(0, n)).join('');
  const lines = largest(Math.min(spansInWindow, spans.length), (n) => counter.count(take(n)) <= budget);
  if (lines > 0) return take(lines);
  const cursorLine = Array.from(fromEnd ? spans[spans.length - 1]! : spans[0]!);
  const cut = (n: number): string => (fromEnd ? cursorLine.slice(cursorLine.length - n) : cursorLine.slice(0, n)).join('');
  const limit = Math.min(cursorLine.length, budget * MAX_CHARS_PER_TOKEN);
  return cut(largest(limit, (n) => counter.count(cut(n)) <= budget));
}

function count(text: string, ch: string): number {
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) n++;
  return n;
}

function prefixKept(prefix: string, kept: string): FimKept {
  const last = count(prefix, '\n') + 1;
  const cutInLine = kept !== '' && kept.length < prefix.length && prefix[prefix.length - kept.length - 1] !== '\n';
  return { startLine: last - count(kept, '\n'), endLine: last, chars: kept.length, cutInLine };
}

function suffixKept(suffix: string, kept: string): FimKept {
  const newlines = count(kept, '\n') - (kept.endsWith('\n') ? 1 : 0);
  const cutInLine = kept !== '' && kept.length < suffix.length && !kept.endsWith('\n');
  return { startLine: 1, endLine: 1 + Math.max(0, newlines), chars: kept.length, cutInLine };
}

function checkFimInput(input: FimPromptInput): { share: number; tokens: FimTokens } {
  checkMaxTokens(input.maxTokens);
  const share = input.prefixShare ?? DEFAULT_PREFIX_SHARE;
  if (!(share >= 0 && share <= 1)) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'prefixShare', reason: `must be between 0 and 1, got ${String(share)}` });
  }
  const tokens = input.tokens ?? DEFAULT_FIM_TOKENS;
  for (const key of ['prefix', 'suffix', 'middle'] as const) {
    if (tokens[key] === '') throw new EngineError('INVALID_ARGUMENT', { name: `tokens.${key}`, reason: 'must not be empty' });
  }
  return { share, tokens };
}

/**
 * Renders the FIM prompt:
 *
 * ```text
 * You are completing code. Produce only the code that belongs at the cursor. Do not add explanations.
 *
 * Language: {language}
 * Indent: {tabs | N spaces | unknown}
 * File: {path}
 *
 * <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>
 * ```
 *
 * Unlike the seed's layout, nothing is inserted between a marker and the code, so the model sees
 * the cursor exactly where it is. Budget: the header and markers are fixed; of the tokens left the
 * prefix may take `prefixShare` and the suffix the rest, a side needing less leaving its share to
 * the other. The prefix is trimmed from its start and the suffix from its end at line boundaries;
 * only when not even the cursor line fits is that line cut at characters, the cursor side kept.
 * `counter.count(prompt) <= maxTokens` always holds (checked on the final text, re-trimmed if BPE
 * merges across a boundary cost a token). Throws TOO_LARGE when the header and markers alone do
 * not fit, INVALID_ARGUMENT for a bad `maxTokens`, `prefixShare` or empty marker.
 */
export function renderFimPrompt(input: FimPromptInput): FimPrompt {
  const { share, tokens } = checkFimInput(input);
  const { counter, maxTokens, prefix, suffix } = input;
  const indent = input.indent ?? detectIndent(prefix + suffix);
  const header =
    `${FIM_INSTRUCTION}\n\nLanguage: ${oneLine(input.language)}\nIndent: ${describeIndent(indent)}\nFile: ${oneLine(input.path)}\n\n`;
  const render = (p: string, s: string): string => `${header}${tokens.prefix}${p}${tokens.suffix}${s}${tokens.middle}`;
  const fixed = counter.count(render('', ''));
  if (fixed > maxTokens) {
    throw fixedPartTooLarge('the FIM header with its markers', fixed, maxTokens, 'raise maxTokens, or shorten the path and language');
  }
  const prefixWindow = prefix.slice(-(maxTokens - fixed) * MAX_CHARS_PER_TOKEN - 1);
  const prefixNeed = prefixWindow.length === prefix.length ? counter.count(prefix) : Infinity;
  for (let slack = 0; ; ) {
    const avail = maxTokens - fixed - slack;
    const suffixText = keepNearCursor(suffix, avail - Math.min(prefixNeed, Math.floor(avail * share)), counter, false);
    const prefixText = keepNearCursor(prefix, avail - (suffixText === '' ? 0 : counter.count(suffixText)), counter, true);
    const prompt = render(prefixText, suffixText);
    const total = counter.count(prompt);
    if (total <= maxTokens) {
      return {
        prompt,
        prefixKept: prefixKept(prefix, prefixText),
        suffixKept: suffixKept(suffix, suffixText),
        truncated: prefixText.length < prefix.length || suffixText.length < suffix.length,
        tokens: total,
      };
    }
    slack += total - maxTokens; // BPE merges at the seams cost more than the parts: shrink and retry
  }
}
