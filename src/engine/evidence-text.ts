import { estimateTokens } from '../context/tokens.js';

/**
 * Words of a text written as code, in order, once each: camelCase or PascalCase with an inner
 * capital, snake_case, with digits, or called (`name(`). Plain words (`open`, `database`) would
 * look up every method of that name in the repository.
 */
export function identifiers(text: string, max = 40): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]{2,}(\()?/g)) {
    const word = m[0].replace(/\($/, '');
    const codeLike = m[1] !== undefined || /[a-z][A-Z]|[A-Z][a-z]+[A-Z]|_|\d/.test(word);
    if (codeLike && !out.includes(word)) out.push(word);
    if (out.length >= max) break;
  }
  return out;
}

/** Words that are called in code (`name(`), not keywords, in order, once each. */
export function calledNames(text: string, max = 40): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w$.])(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]{2,})\s*\(/g)) {
    const name = m[1]!;
    if (!CALL_KEYWORDS.has(name) && !out.includes(name)) out.push(name);
    if (out.length >= max) break;
  }
  return out;
}

/** Capitalised words (types, classes), in order, once each. */
export function typeNames(text: string, max = 40): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w$])([A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*)/g)) {
    const name = m[1]!;
    if (!TYPE_STOP.has(name) && !out.includes(name)) out.push(name);
    if (out.length >= max) break;
  }
  return out;
}

const CALL_KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'typeof', 'await', 'print', 'len', 'isinstance', 'super', 'require', 'import', 'assert', 'expect', 'describe', 'test', 'elif', 'with', 'and', 'not', 'def', 'fn', 'func', 'range', 'str', 'int', 'list', 'dict', 'set', 'tuple', 'String', 'Number', 'Boolean', 'Array', 'Object', 'Promise', 'Error', 'new', 'map', 'filter', 'push', 'get', 'has']);
const TYPE_STOP = new Set(['None', 'True', 'False', 'The', 'This', 'TODO', 'Error', 'Promise', 'Array', 'Object', 'String', 'Number', 'Boolean', 'Map', 'Set', 'Self', 'Some', 'Ok', 'Err', 'Option', 'Result', 'Vec']);

/**
 * A chunk cut to its first lines so that it takes at most `cap` tokens (estimated): one large
 * chunk must not crowd every other piece out of a small budget. Chunks are definition-sized, so
 * this only bites when the budget is small.
 */
export function capChunk(text: string, startLine: number, cap: number): { text: string; endLine: number } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (estimateTokens(text) <= cap) return { text, endLine: startLine + Math.max(lines.length, 1) - 1 };
  let used = 0;
  let keep = 0;
  while (keep < lines.length && used + estimateTokens(`${lines[keep]}\n`) <= cap) used += estimateTokens(`${lines[keep++]}\n`);
  keep = Math.max(keep, 1);
  return { text: lines.slice(0, keep).join('\n'), endLine: startLine + keep - 1 };
}
