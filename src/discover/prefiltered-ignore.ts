import ignore from 'ignore';

/** The part of `ignore`'s interface the walk uses. */
export interface PathFilter {
  ignores(path: string): boolean;
}

/**
 * The literal fragments a path must contain (case-insensitively) for `pattern` to match it or
 * one of its parent directories: the pattern split at glob characters and slashes. `undefined`
 * when no cheap condition can be derived (escapes), so the pattern is always asked.
 */
export function literalFragments(pattern: string): string[] | undefined {
  if (pattern.includes('\\')) return undefined;
  return pattern
    .trim()
    .toLowerCase()
    .split(/\[[^\]]*\]|[*?/[\]]/)
    .filter((f) => f.length > 0);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const GLOB = /[*?[\]]/;

/**
 * A regular expression a path must match for `pattern` (trimmed, lower case, positive) to match it or
 * one of its parents: the pattern's first literal fragment, at the start of a path segment when the
 * pattern starts with a literal, and at the end of one when that fragment is also where the pattern
 * ends (`*.a` needs `.a` before a `/` or the end, not anywhere).
 */
function firstFragmentSource(pattern: string, fragments: readonly string[]): string {
  const body = pattern.replace(/^\/+|\/+$/g, '');
  const startsLiteral = !GLOB.test(body[0] ?? '*');
  const endsLiteral = fragments.length === 1 && !GLOB.test(body[body.length - 1] ?? '*');
  return `${startsLiteral ? '(?:^|/)' : ''}${escapeRegExp(fragments[0]!)}${endsLiteral ? '(?=/|$)' : ''}`;
}

/**
 * An `ignore` instance behind an exact, cheap pre-check (issue 19: the no-change rescan spent
 * about half its walk in `ignore`, which runs every pattern's regular expression on every path).
 * A path can be ignored only if some positive pattern matches it or one of its parents, and a
 * pattern can match only paths containing each of its literal fragments (the first one at segment
 * boundaries where the pattern has them): a path failing that for every positive pattern is not
 * ignored, without asking `ignore`. Anything else is asked, so negations, anchoring,
 * directory-only patterns and case rules stay `ignore`'s.
 */
export function prefilteredIgnore(patterns: readonly string[]): PathFilter {
  const matcher = ignore().add([...patterns]);
  const positives: string[][] = [];
  const firsts = new Set<string>();
  for (const p of patterns) {
    const trimmed = p.trim().toLowerCase();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const fragments = literalFragments(trimmed);
    if (fragments === undefined || fragments.length === 0) return matcher; // no cheap condition: ask every time
    positives.push(fragments);
    firsts.add(firstFragmentSource(trimmed, fragments));
  }
  if (positives.length === 0) return { ignores: () => false }; // nothing to match (negations only un-ignore)
  // one scan for any pattern's first fragment; the full condition only when one is there
  const first = new RegExp([...firsts].join('|'));
  return {
    ignores(path: string): boolean {
      const lower = path.toLowerCase();
      if (!first.test(lower)) return false;
      return positives.some((fragments) => fragments.every((f) => lower.includes(f))) && matcher.ignores(path);
    },
  };
}
