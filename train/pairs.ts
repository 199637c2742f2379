/**
 * One (description, code unit) pair per documented definition (issue 17): the definition as scry's
 * chunker cuts it, its doc comment or docstring taken out of the code and its first sentence(s)
 * made the description. Trivial pairs are dropped here; deduplication happens in harvest.ts.
 */
import type { ChunkDraft } from '../src/core/chunk.js';

export interface Pair {
  readonly description: string;
  /** The code unit with its documentation removed. */
  readonly code: string;
  readonly symbol: string;
  readonly container?: string | undefined;
  readonly kind: string;
}

const DEF_KINDS = new Set(['function', 'method', 'class', 'struct', 'interface', 'type', 'enum']);
const JUNK_DOC = /inheritdoc|auto-?generated|generated (by|from|code)|do not edit|copyright|licen[cs]e|^\s*(todo|fixme|xxx|deprecated|internal|private|see\b|@|:|>>>)/i;
const MAX_CODE = 6000;

/** The pair a chunk of `language` gives, or undefined (no doc, trivial, junk). */
export function pairOf(chunk: ChunkDraft, text: string, language: string): Pair | undefined {
  if (!DEF_KINDS.has(chunk.kind) || !chunk.symbol) return undefined;
  const split = language === 'python' ? pythonDoc(text) : leadingDoc(text, language);
  if (!split) return undefined;
  const description = firstSentences(split.doc, chunk.symbol);
  if (!description) return undefined;
  const code = split.code.trim();
  const lines = code.split('\n').filter((l) => l.trim() !== '');
  if (code.length < 40 || lines.length < 2) return undefined;
  if (/^(get|set|is|has)([A-Z_]|$)/.test(chunk.symbol) && lines.length <= 4) return undefined;
  return { description, code: code.length > MAX_CODE ? code.slice(0, MAX_CODE) : code, symbol: chunk.symbol, container: chunk.container, kind: chunk.kind };
}

/** A `/** … *\/` block, or `///` / `//` line comments, at the top of the chunk (with decorators or attributes around it). */
function leadingDoc(text: string, language: string): { doc: string; code: string } | undefined {
  const block = /^(\s*(?:(?:@|#\[)[^\n]*\n\s*)*)\/\*\*(?!\/)([\s\S]*?)\*\/[ \t]*\n?/.exec(text);
  if (block) {
    const doc = block[2]!.split('\n').map((l) => l.replace(/^\s*\*?\s?/, '')).join('\n');
    return { doc, code: block[1]! + text.slice(block[0].length) };
  }
  const marker = language === 'rust' ? /^\s*\/\/\/(?!\/)\s?(.*)$/ : language === 'go' ? /^\s*\/\/\s?(.*)$/ : undefined;
  if (!marker) return undefined;
  const lines = text.split('\n');
  const docLines: string[] = [];
  const kept: string[] = [];
  let inHead = true;
  for (const line of lines) {
    const m = inHead ? marker.exec(line) : null;
    if (m) docLines.push(m[1]!);
    else {
      if (inHead && !/^\s*(#\[|$)/.test(line)) inHead = false;
      kept.push(line);
    }
  }
  if (docLines.length === 0) return undefined;
  return { doc: docLines.join('\n'), code: kept.join('\n') };
}

/** The docstring right after a `def`/`class` head, and the code without it. */
function pythonDoc(text: string): { doc: string; code: string } | undefined {
  const m = /^((?:\s*@[^\n]*\n)*\s*(?:async\s+)?(?:def|class)\s[\s\S]*?:[ \t]*(?:#[^\n]*)?\n)[ \t]*[rRuU]?("""|''')([\s\S]*?)\2[ \t]*\n?/.exec(text);
  if (!m) return undefined;
  return { doc: dedent(m[3]!), code: m[1]! + text.slice(m[0].length) };
}

function dedent(s: string): string {
  return s.split('\n').map((l) => l.trim()).join('\n');
}

/**
 * The first sentence of a doc (the second too when the first is short), cut at the first blank
 * line, tag line (`@param`) or section header (`Args:`); inline markup reduced to its words.
 * Undefined when fewer than 3 words remain or the doc is boilerplate.
 */
export function firstSentences(doc: string, symbol: string): string | undefined {
  const para: string[] = [];
  for (const raw of doc.trim().split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('@') || /^(args|arguments|parameters|params|returns?|raises|yields|examples?|notes?|see also|usage)\s*:/i.test(line) || /^#+\s/.test(line)) break;
    // a numpy-style section: its header line is underlined
    if (/^[-=]{3,}$/.test(line)) {
      para.pop();
      break;
    }
    para.push(line);
  }
  let text = para.join(' ')
    .replace(/\{@\w+\s+([^}|\s]+)[^}]*\}/g, '$1')
    .replace(/:[a-z]+:`~?([^`]+)`/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\[`?([^\]`]+)`?\]/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (JUNK_DOC.test(text)) return undefined;
  if (text.startsWith(`${symbol} `)) text = text.slice(symbol.length + 1);
  const sentences = text.split(/(?<=[.!?])\s+(?=[A-Z])/);
  let out = sentences[0] ?? '';
  if (out.split(' ').length < 6 && sentences[1]) out = `${out} ${sentences[1]}`;
  if (out.length > 300) out = out.slice(0, 300);
  const words = out.match(/[A-Za-z]{2,}/g) ?? [];
  if (words.length < 3) return undefined;
  return out;
}
