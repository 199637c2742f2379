import type { Range } from 'web-tree-sitter';

/** A `<script>` block of an HTML-like file (Vue, Svelte, HTML): the range of its content. */
export interface ScriptBlock {
  readonly language: 'typescript' | 'javascript';
  readonly range: Range;
}

const SCRIPT_RE = /<script\b([^>]*)>/gi;
const MAX_BLOCKS = 64;

function position(text: string, index: number): { row: number; column: number } {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: index - lineStart };
}

/**
 * The script blocks of a Vue/Svelte/HTML file, all of the language of the first one (a file
 * mixing `lang="ts"` and plain blocks is parsed as its first block's language). JSON and
 * template scripts (`type="application/json"`, `text/x-template`) are not code and are skipped.
 */
export function scriptBlocks(text: string): ScriptBlock[] {
  const out: ScriptBlock[] = [];
  for (const m of text.matchAll(SCRIPT_RE)) {
    const attrs = m[1] ?? '';
    const type = /\btype\s*=\s*["']?([^"'\s>]+)/i.exec(attrs)?.[1]?.toLowerCase();
    if (type && !/(?:java|ecma|type)script|module|^ts$/.test(type)) continue;
    if (/\bsrc\s*=/i.test(attrs)) continue;
    const start = m.index + m[0].length;
    const end = text.indexOf('</script', start);
    if (end === -1) break;
    const lang = /\blang\s*=\s*["']?(ts|typescript|tsx)\b/i.test(attrs) ? 'typescript' : 'javascript';
    if (out.length > 0 && out[0]!.language !== lang) continue;
    out.push({ language: lang, range: { startIndex: start, endIndex: end, startPosition: position(text, start), endPosition: position(text, end) } });
    if (out.length >= MAX_BLOCKS) break;
  }
  return out;
}
