/** What a file holds, for filtering and for ranking priors. */
export type ContentType = 'code' | 'docs' | 'config' | 'text';

export const CONTENT_TYPES: readonly ContentType[] = ['code', 'docs', 'config', 'text'];

/** A file discovery decided to index. Paths are POSIX-style, relative to the project root. */
export interface FileCandidate {
  /** Path relative to the root, with `/` separators. */
  readonly path: string;
  /** Absolute real path on disk (symlinks resolved, always inside the root). */
  readonly absPath: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** The file's last commit time, ms since the epoch, when the root is a git work tree and recency is on (issue 22). */
  readonly committedMs?: number | undefined;
  readonly language: string;
  readonly contentType: ContentType;
}

/** Why discovery left a path out. Stable strings: they appear in `--dry-run` and status output. */
export type SkipReason =
  | 'ignored'
  | 'denylist'
  | 'secret'
  | 'too_large'
  | 'binary'
  | 'minified'
  | 'symlink_outside_root'
  | 'symlink_duplicate'
  | 'broken_symlink'
  | 'unreadable'
  | 'special_file'
  /** A document (PDF) that needs a password. */
  | 'encrypted'
  /** A document with no text to index: an image-only PDF, mail without a readable message. */
  | 'no_text'
  /** A document its parser cannot read (broken PDF, not an mbox). */
  | 'malformed';
