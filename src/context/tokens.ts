/**
 * Token counting behind one interface: budgets (`max_tokens`, context packs) are in tokens.
 * The real counter is gpt-tokenizer's o200k_base BPE (the GPT-4o/GPT-5 vocabulary), pure JS and
 * shipped inside the npm package; it is loaded on first use (~0.3 s), never at start-up.
 * `estimateTokens` is the cheap bound for bulk work where an exact count is not needed.
 */
export interface TokenCounter {
  /** Tokenizer name, e.g. `o200k_base`. */
  readonly name: string;
  count(text: string): number;
}

const NO_SPECIAL = new Set<string>();

let loaded: Promise<TokenCounter> | undefined;

/** The o200k_base counter, loaded once per process (a documented module-level cache). */
export function loadTokenCounter(): Promise<TokenCounter> {
  loaded ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => ({
    name: 'o200k_base',
    // indexed text may contain `<|endoftext|>` and friends: count them as plain text, never throw
    count: (text: string): number => m.countTokens(text, { disallowedSpecial: NO_SPECIAL }),
  }));
  return loaded;
}

/**
 * A quick estimate: about 3.5 characters per token for code and prose (o200k averages 3.6–4.2 on
 * source files; the lower figure makes the estimate err high, which is the safe side for budgets).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}
