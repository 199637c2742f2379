/**
 * Sampling settings per task (seed §18.3 and §18.7). Field names follow the OpenAI-compatible
 * request body that llama.cpp, Ollama's `/v1` and LM Studio accept, so a preset can be spread into
 * a request: `{ model, prompt, ...DECODING_PRESETS.completion }`.
 */

/** Sampling parameters for one task. */
export interface DecodingPreset {
  /** Sampling temperature; low for code, where the likeliest token is usually right. */
  readonly temperature: number;
  /** Nucleus sampling mass. */
  readonly top_p: number;
  /** Most tokens to generate. */
  readonly max_tokens: number;
  /** Generation stops at the first of these (empty: the model's end-of-turn token only). */
  readonly stop: readonly string[];
  /** Light penalty on repeated tokens (llama.cpp `repeat_penalty`); absent means the runtime default. */
  readonly repeat_penalty?: number;
}

/** The tasks that have a preset; each matches one prompt template. */
export type DecodingTask = 'completion' | 'qa' | 'explain' | 'refactor';

function preset(p: DecodingPreset): DecodingPreset {
  return Object.freeze({ ...p, stop: Object.freeze([...p.stop]) });
}

/**
 * The presets, frozen:
 * - `completion` (FIM, `renderFimPrompt`): temperature 0.2, top_p 0.9, 128 tokens, repeat penalty
 *   1.05, stop at a blank line (`\n\n`) so a suggestion is one block, not the rest of the file.
 * - `qa` (`renderRepoQaPrompt`): temperature 0.2, top_p 0.9, 512 tokens; retrieval-first, cite
 *   `path:start-end`.
 * - `explain` (`renderExplainDiagnosticPrompt`): temperature 0.1 (the seed allows 0.0–0.2), top_p
 *   0.9, 512 tokens; a proposed fix is a unified diff.
 * - `refactor` (`renderRefactorPrompt`): as `explain`; the output is only a unified diff.
 */
export const DECODING_PRESETS: Readonly<Record<DecodingTask, DecodingPreset>> = Object.freeze({
  completion: preset({ temperature: 0.2, top_p: 0.9, max_tokens: 128, stop: ['\n\n'], repeat_penalty: 1.05 }),
  qa: preset({ temperature: 0.2, top_p: 0.9, max_tokens: 512, stop: [] }),
  explain: preset({ temperature: 0.1, top_p: 0.9, max_tokens: 512, stop: [] }),
  refactor: preset({ temperature: 0.1, top_p: 0.9, max_tokens: 512, stop: [] }),
});
