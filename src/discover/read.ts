import { closeSync, constants, openSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ContentType, FileCandidate, SkipReason } from '../core/file.js';
import { contentHash } from '../core/hash.js';
import { decodeText } from './decode.js';
import { inspectContent } from './secret-content.js';
import { isInside } from './walk.js';
import { detectLanguage } from './language.js';

export type ReadResult =
  | {
      readonly ok: true;
      readonly text: string;
      /** sha256 of the raw bytes on disk. */
      readonly hash: string;
      readonly size: number;
      readonly encoding: string;
      readonly language: string;
      readonly contentType: ContentType;
      /** Token literals replaced in `text` by `«redacted:<rule>»`: rule id → count (empty when none). */
      readonly redactions: Readonly<Record<string, number>>;
    }
  | {
      readonly ok: false;
      readonly reason: SkipReason;
      readonly hash?: string;
      /** For a `secret` found by its content: the rule that matched (`private-key`, `registry-config-token`...). */
      readonly rule?: string;
    };

/**
 * Reads a candidate and decides whether its content may be indexed: resolves the path again
 * (a file may have become a symlink since the walk) and refuses anything outside the root,
 * decodes text, refuses binaries, minified blobs and content that holds key material, redacts
 * token literals (`«redacted:<rule>»`, within their line), and refines the language from the
 * shebang for extension-less scripts.
 */
function readNoFollow(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function readCandidate(root: string, candidate: FileCandidate, maxFileBytes: number): ReadResult {
  let bytes: Buffer;
  let real = candidate.absPath;
  try {
    if (candidate.absPath === join(root, candidate.path)) {
      // Not a link when walked, in real directories (the walk never follows directory links):
      // refuse to follow it if it has become one since, without resolving every path component.
      bytes = readNoFollow(candidate.absPath);
    } else {
      real = realpathSync(candidate.absPath);
      if (!isInside(root, real)) {
        return { ok: false, reason: 'symlink_outside_root' };
      }
      bytes = readFileSync(real);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return { ok: false, reason: 'symlink_outside_root' };
    return { ok: false, reason: 'unreadable' };
  }
  if (bytes.length > maxFileBytes) return { ok: false, reason: 'too_large' };
  const hash = contentHash(bytes);
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { ok: false, reason: decoded.reason, hash };
  // a link is judged by its target's name too (`registry.cfg -> .npmrc`)
  const target = relative(root, real).split(sep).join('/');
  const verdict = inspectContent(decoded.text, target === candidate.path ? [candidate.path] : [candidate.path, target]);
  if (verdict.secret) return { ok: false, reason: 'secret', hash, rule: verdict.rule };
  let { language, contentType } = candidate;
  const text = verdict.text;
  if (language === 'text' && text.startsWith('#!')) {
    const nl = text.indexOf('\n');
    ({ language, contentType } = detectLanguage(candidate.path, text.slice(0, nl === -1 ? 200 : Math.min(nl, 200))));
  }
  return { ok: true, text, hash, size: bytes.length, encoding: decoded.encoding, language, contentType, redactions: verdict.redactions };
}
