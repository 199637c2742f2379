/**
 * The pieces of a long query the model embeds one by one (issue 18, the file prior): a bag-of-words
 * model averages every word of a text, so an issue body of several paragraphs (a title, what
 * happens, a traceback, what was expected) dilutes into one vague vector; each paragraph, code
 * block and the title says one thing. Boilerplate (issue templates, environment dumps, URLs) is
 * left out first (query-understand.ts). Pure.
 */
import { stripNoise } from './query-understand.js';

/** Most pieces a query is cut into (the longest are kept, in their order). */
export const MAX_PIECES = 8;
/** A piece needs at least this many words. */
const MIN_WORDS = 4;
/** A paragraph longer than this is cut at sentence ends. */
const MAX_PIECE_CHARS = 600;

const words = (s: string): number => (s.match(/[\p{L}\p{N}_]+/gu) ?? []).length;

/** Sentences of a long paragraph, joined back into runs of at most MAX_PIECE_CHARS. */
function cutParagraph(p: string): string[] {
  if (p.length <= MAX_PIECE_CHARS) return [p];
  const out: string[] = [];
  let run = '';
  for (const s of p.split(/(?<=[.!?])\s+/)) {
    if (run && run.length + s.length > MAX_PIECE_CHARS) {
      out.push(run);
      run = '';
    }
    run = run ? `${run} ${s}` : s;
  }
  if (run) out.push(run);
  return out;
}

/**
 * The query's pieces: its paragraphs (blank-line separated; a fenced code block is one piece),
 * long ones cut at sentence ends, each of at least MIN_WORDS words; at most MAX_PIECES, the
 * longest kept in their order. Empty when the query has fewer than two pieces (the whole query
 * is then its one piece).
 */
export function queryPieces(query: string): string[] {
  const text = stripNoise(query);
  const blocks: string[] = [];
  // fenced blocks first, so their blank lines do not cut them
  let rest = text.replace(/```[^\n]*\n[\s\S]*?(?:```|$)/g, (m) => {
    blocks.push(m.replace(/```[^\n]*\n?/g, ''));
    return '\n\n';
  });
  rest = rest.replace(/\r\n/g, '\n');
  const paragraphs = [...rest.split(/\n\s*\n/), ...blocks].map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => words(p) >= MIN_WORDS);
  const pieces = paragraphs.flatMap(cutParagraph).filter((p) => words(p) >= MIN_WORDS);
  if (pieces.length < 2) return [];
  if (pieces.length <= MAX_PIECES) return pieces;
  const keep = new Set([...pieces.keys()].sort((a, b) => pieces[b]!.length - pieces[a]!.length || a - b).slice(0, MAX_PIECES));
  return pieces.filter((_, i) => keep.has(i));
}
