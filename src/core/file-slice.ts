/**
 * A slice of a file and its wire shape: what the local read_file tool and the team server's
 * read route both answer (snake_case, as every tool's data), with the same continuation warning.
 */

/** A slice of a file as it is on disk now (not as indexed). */
export interface FileSlice {
  readonly path: string;
  readonly language: string;
  /** 1-based, inclusive: the lines in `text`. */
  readonly startLine: number;
  readonly endLine: number;
  /** Lines in the whole file. */
  readonly totalLines: number;
  readonly text: string;
  /** True when `maxBytes` stopped the slice before `endLine` was reached. */
  readonly truncated: boolean;
  /** sha256 of the whole file's bytes: cite it, or check it before an edit. */
  readonly sha256: string;
}

/** The read_file tool's data. */
export interface FileSliceData {
  readonly path: string;
  readonly language: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly total_lines: number;
  readonly truncated: boolean;
  readonly sha256: string;
  readonly text: string;
}

export function fileSliceData(slice: FileSlice): FileSliceData {
  return {
    path: slice.path,
    language: slice.language,
    start_line: slice.startLine,
    end_line: slice.endLine,
    total_lines: slice.totalLines,
    truncated: slice.truncated,
    sha256: slice.sha256,
    text: slice.text,
  };
}

/** Where to continue when the slice stopped before the last line asked for (`askedEnd`, default the end of the file). */
export function continuationWarnings(slice: FileSlice, askedEnd?: number): string[] {
  const more = slice.endLine < Math.min(askedEnd ?? slice.totalLines, slice.totalLines);
  return more ? [`stopped at line ${slice.endLine} of ${slice.totalLines}: call again with start_line ${slice.endLine + 1}`] : [];
}
