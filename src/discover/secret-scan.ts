import { GENERIC_NAME_ALLOW, PLACEHOLDER_VALUES, SECRET_RULES, type SecretRuleData } from './secret-rules.js';
import { GENERIC_STOPWORDS } from './secret-stopwords.js';

/** One secret found in a text: `[start, end)` are UTF-16 offsets of the secret itself. */
export interface SecretFinding {
  readonly rule: string;
  readonly kind: 'block' | 'token';
  readonly start: number;
  readonly end: number;
}

/** What a scan found: the rule of a key block (the file is a secret), or the tokens to redact. */
export interface SecretScan {
  /** The id of the first block rule that matched: the whole file is a secret. */
  readonly block: string | undefined;
  /** Tokens, by position, never overlapping. */
  readonly tokens: readonly SecretFinding[];
}

/** A redacted text and what was taken out: rule id → count. */
export interface Redaction {
  readonly text: string;
  readonly redactions: Readonly<Record<string, number>>;
}

interface CompiledRule {
  readonly data: SecretRuleData;
  readonly re: RegExp;
  /** Any of the rule's keywords, ignoring case. */
  readonly keywords: RegExp;
  readonly allow: readonly RegExp[];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const anyOf = (words: readonly string[]): RegExp => new RegExp(words.map(escapeRegExp).join('|'), 'i');

const RULES: readonly CompiledRule[] = SECRET_RULES.map((data) => ({
  data,
  re: new RegExp(data.regex, `g${data.flags ?? ''}`),
  keywords: anyOf(data.keywords),
  allow: (data.allow ?? []).map((a) => new RegExp(a)),
}));
/** gitleaks' stop words of the generic rule, in one expression (values are tested lower-cased). */
const STOPWORDS = new RegExp(GENERIC_STOPWORDS.map(escapeRegExp).join('|'));
/** A type or class name made of capitalised words (`PrivateKeyAttributesV2`), as in `key: PrivateKeyAttributesV2;`. */
const PASCAL_NAME = /^(?:[A-Z][a-z]{2,}){2,}(?:V?\d{1,2})?$/;
/** Every keyword of the rules whose keywords are rare: one pass tells whether any of them may run. */
const RARE_KEYWORDS = anyOf(SECRET_RULES.filter((r) => !r.common).flatMap((r) => r.keywords));
const PLACEHOLDERS: readonly RegExp[] = PLACEHOLDER_VALUES.map((p) => new RegExp(p, 'i'));
const NAME_ALLOW = new RegExp(GENERIC_NAME_ALLOW, 'i');
const NAME_CHAR = /[\w.-]/;

/** The marker that stands in for a redacted secret: `«redacted:github-pat»`. */
export const redactionMarker = (rule: string): string => `«redacted:${rule}»`;

/** Shannon entropy in bits per character (gitleaks' measure). */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const n = [...value].length;
  for (const c of counts.values()) {
    const p = c / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * The variable name around a generic match: read backwards from the keyword, forwards to the
 * operator. Undefined when the name is a segment of an ARN, a URI or a path (`…:secret:Name`).
 */
function assignedName(text: string, matchStart: number, match: string): string | undefined {
  let from = matchStart;
  while (from > 0 && matchStart - from < 60 && NAME_CHAR.test(text[from - 1]!)) from--;
  if (from > 0 && (text[from - 1] === ':' || text[from - 1] === '/')) return undefined;
  const tail = /^[\w.-]*/.exec(match)![0];
  return text.slice(from, matchStart) + tail;
}

/**
 * Checks of the generic rule beyond its regex: a secret-named variable, and a value that looks
 * random (a letter and a digit, no gitleaks stop word, not a version or a type name).
 */
function genericAccepts(text: string, index: number, match: string, value: string): boolean {
  // only letters, `_`, `.`, `-`: an identifier or a dotted reference (`process.env.API_KEY`), not a secret
  if (/^[a-zA-Z_.-]+$/.test(value) || !/[0-9]/.test(value) || !/[a-zA-Z]/.test(value)) return false;
  if (/^[\d.]+$|^v?\d+(?:\.\d+)+/.test(value) || PASCAL_NAME.test(value) || STOPWORDS.test(value.toLowerCase())) return false;
  const name = assignedName(text, index, match);
  return name !== undefined && !NAME_ALLOW.test(name);
}

function accepts(rule: CompiledRule, text: string, m: RegExpMatchArray, value: string): boolean {
  if (rule.data.entropy !== undefined && shannonEntropy(value) < rule.data.entropy) return false;
  if (rule.allow.some((a) => a.test(value))) return false;
  if (rule.data.kind === 'token' && PLACEHOLDERS.some((p) => p.test(value))) return false;
  if (rule.data.id === 'generic-api-key') return genericAccepts(text, m.index!, m[0], value);
  return true;
}

/**
 * The rules that may match: the common-keyword rules always (their regex is the scan), the others
 * only when one pass over the text finds a keyword of theirs, which most files do not hold.
 */
function candidateRules(text: string): CompiledRule[] {
  const rare = RARE_KEYWORDS.test(text);
  return RULES.filter((r) => r.data.common || (rare && r.keywords.test(text)));
}

/**
 * Scans a text with the rules of `secret-rules.ts`. A rule runs only when one of its keywords
 * occurs (gitleaks' prefilter; see `candidateRules`), so most files cost one keyword pass and the
 * few rules with common keywords; block rules stop the
 * scan at the first match. Token findings are the secrets themselves (the capture group), never
 * overlapping: when two rules claim the same characters, the one listed first keeps them.
 */
export function scanSecrets(text: string): SecretScan {
  const rules = candidateRules(text);
  for (const rule of rules) {
    if (rule.data.kind !== 'block') continue;
    for (const m of text.matchAll(rule.re)) if (accepts(rule, text, m, m[0])) return { block: rule.data.id, tokens: [] };
  }
  const found: SecretFinding[] = [];
  for (const rule of rules) {
    if (rule.data.kind !== 'token') continue;
    const group = rule.data.group ?? 0;
    for (const m of text.matchAll(rule.re)) {
      const value = m[group];
      if (value === undefined || value === '' || !accepts(rule, text, m, value)) continue;
      const start = m.index! + (group === 0 ? 0 : m[0].indexOf(value));
      found.push({ rule: rule.data.id, kind: 'token', start, end: start + value.length });
    }
  }
  return { block: undefined, tokens: nonOverlapping(found) };
}

function nonOverlapping(found: SecretFinding[]): SecretFinding[] {
  const order = new Map(RULES.map((r, i) => [r.data.id, i]));
  const sorted = [...found].sort((a, b) => order.get(a.rule)! - order.get(b.rule)! || a.start - b.start);
  const kept: SecretFinding[] = [];
  for (const f of sorted) if (!kept.some((k) => f.start < k.end && k.start < f.end)) kept.push(f);
  return kept.sort((a, b) => a.start - b.start);
}

/** Replaces each token with its marker, within its line (a token never holds a line end). */
export function redactTokens(text: string, tokens: readonly SecretFinding[]): Redaction {
  if (tokens.length === 0) return { text, redactions: {} };
  const parts: string[] = [];
  const redactions: Record<string, number> = {};
  let at = 0;
  for (const t of tokens) {
    parts.push(text.slice(at, t.start), redactionMarker(t.rule));
    redactions[t.rule] = (redactions[t.rule] ?? 0) + 1;
    at = t.end;
  }
  parts.push(text.slice(at));
  return { text: parts.join(''), redactions };
}

/** The ids of every rule, in priority order. */
export const SECRET_RULE_IDS: readonly string[] = RULES.map((r) => r.data.id);
