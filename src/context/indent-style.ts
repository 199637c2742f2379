/**
 * Indentation style of a source text, for the FIM prompt header ("Indent: 2 spaces"): small models
 * complete with the wrong indentation surprisingly often unless told.
 */

/** How a file indents: with tabs, or with `width` spaces per level. */
export type IndentStyle = { readonly kind: 'tabs' } | { readonly kind: 'spaces'; readonly width: number };

/** Leading whitespace of a line, or undefined for blank lines and block-comment continuations. */
function leadingOf(line: string): string | undefined {
  const lead = /^[ \t]*/.exec(line)![0];
  const rest = line.slice(lead.length).replace(/\r$/, '');
  if (rest === '' || rest.startsWith('*')) return undefined; // ` * ` in /** */ blocks is alignment, not indent
  return lead;
}

/** The most frequent positive key of `counts`; ties go to the smaller key. */
function mostFrequent(counts: Map<number, number>): number | undefined {
  let best: number | undefined;
  let bestCount = 0;
  for (const [key, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== undefined && key < best)) {
      best = key;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Detects the indentation of `text`: `tabs` when more indented lines start with a tab than with a
 * space; otherwise `spaces` with the most frequent change in indentation between consecutive
 * non-blank lines (ties to the smaller width; the narrowest indent when no line changes it), so nesting in 2s or 4s is told apart from alignment.
 * Blank lines and ` * ` comment continuations are ignored. Returns `null` when no line is indented.
 */
export function detectIndent(text: string): IndentStyle | null {
  let tabLines = 0;
  let spaceLines = 0;
  const deltas = new Map<number, number>();
  let previous: number | undefined;
  let narrowest = Infinity;
  for (const line of text.split('\n')) {
    const lead = leadingOf(line);
    if (lead === undefined) continue;
    if (lead.startsWith('\t')) {
      tabLines++;
      previous = undefined;
      continue;
    }
    const width = lead.includes('\t') ? undefined : lead.length;
    if (width !== undefined && width > 0) {
      spaceLines++;
      narrowest = Math.min(narrowest, width);
    }
    if (width !== undefined && previous !== undefined && width !== previous) {
      const delta = Math.abs(width - previous);
      deltas.set(delta, (deltas.get(delta) ?? 0) + 1);
    }
    previous = width;
  }
  if (tabLines === 0 && spaceLines === 0) return null;
  if (tabLines > spaceLines) return { kind: 'tabs' };
  return { kind: 'spaces', width: mostFrequent(deltas) ?? narrowest };
}

/** The header wording: `tabs`, `1 space`, `4 spaces`, or `unknown` for `null`. */
export function describeIndent(style: IndentStyle | null): string {
  if (style === null) return 'unknown';
  if (style.kind === 'tabs') return 'tabs';
  return style.width === 1 ? '1 space' : `${style.width} spaces`;
}
