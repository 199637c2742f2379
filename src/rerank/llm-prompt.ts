/**
 * What the LLM reranker asks and how it reads the answer: the prompt for one candidate (the shape
 * from the design note, bounded in size) and the score in a reply. Pure: no I/O.
 */
import type { RerankCandidate } from './reranker.js';

/** Prompt bounds: the query and the snippet are cut to these many UTF-16 units, so a prompt stays a few thousand tokens. */
export const LLM_PROMPT_LIMITS = { queryChars: 2000, pathChars: 512, snippetChars: 6000 } as const;

const SCORE_MIN = 0;
const SCORE_MAX = 10;

const PROMPT_HEAD =
  'You are a code relevance judge. Given a search query and a code snippet, output ONLY a relevance score from 0 to 10.';

/**
 * The prompt for one candidate. The snippet's fence is longer than any run of backticks inside it,
 * so a snippet that holds a fenced block (Markdown docs) cannot close the fence early.
 */
export function buildRerankPrompt(query: string, candidate: RerankCandidate): string {
  const content = cutText(candidate.text, LLM_PROMPT_LIMITS.snippetChars);
  const longestTicks = (content.match(/`+/g) ?? []).reduce((longest, run) => Math.max(longest, run.length), 0);
  const fence = '`'.repeat(Math.max(3, longestTicks + 1));
  const path = cutText(candidate.path, LLM_PROMPT_LIMITS.pathChars);
  return [
    PROMPT_HEAD,
    '',
    `Query: ${cutText(query, LLM_PROMPT_LIMITS.queryChars)}`,
    '',
    `Snippet (${path}, lines ${candidate.startLine}-${candidate.endLine}):`,
    fence,
    content,
    fence,
    '',
    'Score (0-10):',
  ].join('\n');
}

const FIRST_NUMBER = /[-+]?(?:\d+(?:\.\d+)?|\.\d+)/;

/**
 * The score in a model's reply: its first number ("7", "Score: 8", "8/10", "7.5"). A reply with
 * no number, or whose first number is outside 0–10, is not a score: clamping "11" or "-3" would
 * turn a confused model into a confident one.
 */
export function parseScore(reply: string): number | undefined {
  // a model that echoes the scale ("Score (0-10): 7", "0 to 10") is not scoring 0
  const match = FIRST_NUMBER.exec(reply.replace(/\(?\b0\s*(?:-|–|to)\s*10\b\)?/gi, ' '));
  if (match === null) return undefined;
  const n = Number(match[0]);
  if (!Number.isFinite(n) || n < SCORE_MIN || n > SCORE_MAX) return undefined;
  return n === 0 ? 0 : n; // no -0
}

/** Cuts to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
