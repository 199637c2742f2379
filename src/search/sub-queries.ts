import { EngineError } from '../core/errors.js';

/**
 * Typed sub-queries, so a calling agent can expand a query itself (issue 8): lines starting with
 * `lex:` go to the lexical list only, `vec:` to the vector list only, and `hyde:` (a hypothetical
 * answer, e.g. code the agent expects to find) is embedded for the vector list. Every other line
 * belongs to the plain query, which goes to every list. A query without typed lines is all plain.
 *
 *   lex: parseConfig loadConfig
 *   vec: where is the configuration file read
 *   hyde: function loadConfig(path) { return JSON.parse(readFileSync(path)) }
 */
export interface SubQueries {
  /** The untyped lines, joined: sent to every list ('' when every line was typed). */
  readonly plain: string;
  readonly lex: readonly string[];
  readonly vec: readonly string[];
  readonly hyde: readonly string[];
  /** True when at least one line was typed. */
  readonly typed: boolean;
}

const TYPED = /^\s*(lex|vec|hyde)\s*:(.*)$/i;
/** Sub-queries of each type at most. */
export const MAX_SUB_QUERIES = 8;

export function parseSubQueries(query: string): SubQueries {
  const lex: string[] = [];
  const vec: string[] = [];
  const hyde: string[] = [];
  const plain: string[] = [];
  // a hyde answer may span lines: untyped lines right after a hyde: line continue it
  let last: string[] | undefined;
  for (const line of query.split(/\r\n|\r|\n/)) {
    const m = TYPED.exec(line);
    if (m) {
      const kind = m[1]!.toLowerCase();
      const text = m[2]!.trim();
      const into = kind === 'lex' ? lex : kind === 'vec' ? vec : hyde;
      if (text === '' && kind !== 'hyde') throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: `an empty "${kind}:" line` });
      if (into.length >= MAX_SUB_QUERIES) throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: `more than ${MAX_SUB_QUERIES} "${kind}:" lines` });
      into.push(text);
      last = kind === 'hyde' ? hyde : undefined;
    } else if (last === hyde && hyde.length > 0) {
      hyde[hyde.length - 1] = `${hyde[hyde.length - 1]}\n${line}`;
    } else plain.push(line);
  }
  for (let i = 0; i < hyde.length; i++) {
    hyde[i] = hyde[i]!.trim();
    if (hyde[i] === '') throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: 'an empty "hyde:" answer' });
  }
  const typed = lex.length + vec.length + hyde.length > 0;
  return { plain: typed ? plain.join('\n').trim() : query, lex, vec, hyde, typed };
}
