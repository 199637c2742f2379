import type { ChunkDraft } from '../core/chunk.js';
import type { ChunkConfig } from '../config/schema.js';
import { parseFrontmatter } from './frontmatter.js';
import { LineTable } from './line-table.js';
import { splitLines } from './window-chunker.js';

interface Heading {
  /** 0-based line of the heading text. */
  readonly line: number;
  /** 0-based line where the section starts (the heading, or an empty parent heading above it). */
  start: number;
  readonly level: number;
  readonly title: string;
  path: string[];
}

const ATX_RE = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;

/** Marks which lines are inside fenced code blocks (fence lines included). */
function fencedLines(table: LineTable): boolean[] {
  const inside: boolean[] = new Array<boolean>(table.count).fill(false);
  let open: string | undefined;
  for (let l = 0; l < table.count; l++) {
    const m = FENCE_RE.exec(table.line(l));
    if (open === undefined) {
      if (m) {
        open = m[1]![0]!.repeat(m[1]!.length);
        inside[l] = true;
      }
    } else {
      inside[l] = true;
      if (m && m[1]!.startsWith(open) && table.line(l).trim().replace(/[`~]/g, '') === '') open = undefined;
    }
  }
  return inside;
}

function frontmatterEnd(table: LineTable): number | undefined {
  if (table.count < 2 || table.line(0).trim() !== '---') return undefined;
  for (let l = 1; l < table.count; l++) if (/^(---|\.\.\.)\s*$/.test(table.line(l))) return l;
  return undefined;
}

/** The parsed YAML between the frontmatter fences (lines 1..end-1), if it is a valid mapping. */
function frontmatterOf(table: LineTable, end: number): Record<string, unknown> | undefined {
  return parseFrontmatter(table.text.slice(table.charStarts[1], table.charStarts[end]));
}

/** Markdown metadata: the YAML frontmatter as plain JSON values, or undefined if absent or invalid. */
export function markdownMetadata(text: string): Record<string, unknown> | undefined {
  const table = new LineTable(text);
  const end = frontmatterEnd(table);
  return end === undefined ? undefined : frontmatterOf(table, end);
}

/** Caps `defines` of the frontmatter chunk: tag lists are sometimes generated and long. */
const MAX_FRONTMATTER_NAMES = 32;

/** The frontmatter chunk's symbol (the title) and defines (title, then tags and keywords). */
function frontmatterNames(meta: Record<string, unknown> | undefined): { symbol: string | undefined; defines: string[] } {
  const title = typeof meta?.title === 'string' && meta.title.trim() !== '' ? meta.title.trim() : undefined;
  const names = new Set<string>(title === undefined ? [] : [title]);
  for (const list of [meta?.tags, meta?.keywords]) {
    if (!Array.isArray(list)) continue;
    for (const tag of list) if (typeof tag === 'string' && tag.trim() !== '') names.add(tag.trim());
  }
  return { symbol: title, defines: [...names].slice(0, MAX_FRONTMATTER_NAMES) };
}

function findHeadings(table: LineTable, fenced: boolean[], from: number): Heading[] {
  const headings: Heading[] = [];
  for (let l = from; l < table.count; l++) {
    if (fenced[l]) continue;
    const text = table.line(l);
    const atx = ATX_RE.exec(text);
    if (atx) {
      headings.push({ line: l, start: l, level: atx[1]!.length, title: (atx[2] ?? '').trim(), path: [] });
      continue;
    }
    // setext: a non-blank paragraph line underlined with === (h1) or --- (h2)
    const next = l + 1 < table.count && !fenced[l + 1] ? table.line(l + 1) : '';
    if (text.trim() !== '' && !/^\s*([-*+]|\d+[.)])\s/.test(text) && /^ {0,3}(=+|-{2,})\s*$/.test(next) && (l === from || table.isBlank(l - 1))) {
      headings.push({ line: l, start: l, level: next.trim().startsWith('=') ? 1 : 2, title: text.trim(), path: [] });
      l++;
    }
  }
  return headings;
}

/**
 * Markdown by heading hierarchy. Each section runs from its heading to the next heading; its
 * symbol is the heading text and its container the breadcrumb of parent headings. A heading
 * with no body of its own (directly followed by a sub-heading) is folded into the next section so
 * it is not a chunk of one line. YAML frontmatter is its own chunk, named by its `title`. Long
 * sections are split with the line-window rules, never inside a code fence.
 */
export function chunkMarkdown(text: string, config: ChunkConfig): ChunkDraft[] {
  const table = new LineTable(text);
  if (table.count === 0) return [];
  const fenced = fencedLines(table);
  const out: ChunkDraft[] = [];
  const fmEnd = frontmatterEnd(table);
  let bodyStart = 0;
  if (fmEnd !== undefined) {
    const { symbol, defines } = frontmatterNames(frontmatterOf(table, fmEnd));
    for (const c of splitLines(table, 0, fmEnd, config, { kind: 'frontmatter', symbol })) out.push(defines.length > 0 ? { ...c, defines } : c);
    bodyStart = fmEnd + 1;
  }
  const headings = findHeadings(table, fenced, bodyStart);
  const stack: Heading[] = [];
  for (const h of headings) {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level) stack.pop();
    h.path = stack.map((s) => s.title);
    stack.push(h);
  }
  // fold body-less headings into the following section
  const sections: Heading[] = [];
  let pendingStart: number | undefined;
  for (let i = 0; i < headings.length; i++) {
    const h = headings[i]!;
    const bodyEnd = i + 1 < headings.length ? headings[i + 1]!.start - 1 : table.count - 1;
    let hasBody = false;
    for (let l = h.line + 1; l <= bodyEnd && !hasBody; l++) if (!table.isBlank(l) && !/^ {0,3}(=+|-{2,})\s*$/.test(table.line(l))) hasBody = true;
    if (pendingStart !== undefined) h.start = pendingStart;
    if (!hasBody && i + 1 < headings.length) {
      pendingStart = h.start;
      continue;
    }
    pendingStart = undefined;
    sections.push(h);
  }
  const canEndAfter = (l: number): boolean => !fenced[l] || (l + 1 < table.count && !fenced[l + 1]) || l + 1 >= table.count;
  const firstHeading = sections[0]?.start ?? table.count;
  if (firstHeading > bodyStart) {
    out.push(...splitLines(table, bodyStart, firstHeading - 1, config, { kind: 'section', canEndAfter }));
  }
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i]!;
    const end = i + 1 < sections.length ? sections[i + 1]!.start - 1 : table.count - 1;
    const container = s.path.length > 0 ? s.path.join(' > ') : undefined;
    out.push(...splitLines(table, s.start, end, config, { kind: 'section', symbol: s.title || undefined, container, canEndAfter }));
  }
  return out;
}
