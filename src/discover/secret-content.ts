import { redactTokens, scanSecrets } from './secret-scan.js';

/**
 * The content-level secret decision for a file: a secret (never stored or served), or its text
 * with every token literal replaced by `«redacted:<rule>»` (what is stored and served).
 */
export type ContentVerdict =
  | { readonly secret: true; readonly rule: string }
  | { readonly secret: false; readonly text: string; readonly redactions: Readonly<Record<string, number>> };

/** Names whose *content* decides: registry configs are secrets when they carry tokens or passwords. */
const TOKEN_CONFIG_NAMES = new Set(['.npmrc', '.pypirc', '.yarnrc.yml', '.yarnrc']);
const TOKEN_RE = /_authToken|_auth\s*=|_password|npmAuthToken|^\s*password\s*[=:]/im;
/** Cloud service-account key files (`service-account-prod.json`) are secrets when they hold a key. */
const SERVICE_ACCOUNT_NAME = /^service[-_]?account.*\.json$/i;
const PRIVATE_KEY_FIELD = /"private_key"\s*:/;

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

function secretByName(paths: readonly string[], text: string, tokens: boolean): string | undefined {
  for (const path of paths) {
    const base = baseName(path);
    if (TOKEN_CONFIG_NAMES.has(base) && (TOKEN_RE.test(text) || tokens)) return 'registry-config-token';
    if (SERVICE_ACCOUNT_NAME.test(base) && PRIVATE_KEY_FIELD.test(text)) return 'service-account-key';
  }
  return undefined;
}

/**
 * Decides what of `text` may be stored and served. `paths` are the names the file is reached by
 * (its path, and a link's target): a registry config with a token is a secret whole, as is a file
 * with a key block (PEM, OpenSSH, PGP, PuTTY); other token literals are redacted in place.
 */
export function inspectContent(text: string, paths: readonly string[]): ContentVerdict {
  const scan = scanSecrets(text);
  if (scan.block) return { secret: true, rule: scan.block };
  const byName = secretByName(paths, text, scan.tokens.length > 0);
  if (byName) return { secret: true, rule: byName };
  return { secret: false, ...redactTokens(text, scan.tokens) };
}

/** Whether a file's content makes it a secret as a whole (see `inspectContent`). */
export function looksSecret(path: string, text: string): boolean {
  return inspectContent(text, [path]).secret;
}

/** `text` with its token literals redacted, key blocks or not: for text shown rather than stored (a proposed diff). */
export function redactTokenLiterals(text: string): string {
  return redactTokens(text, scanSecrets(text).tokens).text;
}
