/**
 * Traceback frames in a long text (issue 18, longterms): which frames of a pasted Python or
 * JavaScript stack trace are the project's own and which are a library's or the runtime's. Pure;
 * the caller says which paths the index holds (`search.ranking.longTerms.frames`, docs/DESIGN.md
 * "Query processing"). Input is untrusted: the patterns are linear (no nested quantifiers over the
 * same characters) and every line is looked at once.
 */
import { isLibraryPath } from '../core/library-paths.js';

/** One frame of a stack trace. `lines`: the text's line numbers (0-based) the frame spans. */
export interface Frame {
  /** The file as the trace writes it (`/usr/lib/python3.11/site-packages/monai/x.py`, `src/a.js`). */
  readonly path: string;
  /** The function the frame is in, when written (`<module>` and `<lambda>` included). */
  readonly func: string;
  /** The frame's own line and, for Python, the source line printed under it. */
  readonly lines: readonly number[];
}

/** `File "pkg/mod.py", line 10, in func` (the path may hold spaces; Windows paths too). */
const PY_FRAME = /^\s*File "([^"\n]{1,500})", line \d{1,9}(?:, in ([^\s]{1,200}))?\s*$/;
/** `at foo.bar (src/x.js:10:5)`, `at async foo (file:///a/b.mjs:1:2)`, `at src/x.js:10:5`. */
const JS_FRAME = /^\s*at\s+(?:async\s+)?(?:([^\s()]{1,200})\s+\(([^()\n]{1,500}?):\d{1,9}(?::\d{1,9})?\)|([^\s()]{1,500}?):\d{1,9}(?::\d{1,9})?)\s*$/;

/** The frames of `text`, in order. */
export function parseFrames(text: string): Frame[] {
  const lines = text.split('\n');
  const out: Frame[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length > 1200) continue;
    const py = PY_FRAME.exec(line);
    if (py) {
      // Python prints the frame's source line under it, indented further (absent for frozen or C code)
      const next = lines[i + 1];
      const own = next !== undefined && next.trim() !== '' && !PY_FRAME.test(next) && indent(next) > indent(line) ? [i, i + 1] : [i];
      out.push({ path: py[1]!, func: py[2] ?? '', lines: own });
      continue;
    }
    const js = JS_FRAME.exec(line);
    if (js) out.push({ path: js[2] ?? js[3]!, func: js[1] ?? '', lines: [i] });
  }
  return out;
}

function indent(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * The relative paths under which an index might hold a frame's file, longest first: each suffix of
 * its path after the last library directory (`.../site-packages/monai/x.py` → `monai/x.py`, `x.py`),
 * or of the whole path (`/home/u/proj/src/a.py` → `home/u/proj/src/a.py`, ..., `a.py`). At most 8.
 */
export function frameSuffixes(path: string): string[] {
  const clean = path.replace(/^file:\/\//, '').replace(/\\/g, '/');
  const parts = clean.split('/').filter((p) => p !== '' && p !== '.');
  let start = 0;
  parts.forEach((p, i) => {
    if (/^(?:site-packages|dist-packages|node_modules)$/.test(p)) start = i + 1;
  });
  const rest = parts.slice(start);
  const out: string[] = [];
  for (let i = 0; i < rest.length && out.length < 8; i++) out.push(rest.slice(i).join('/'));
  return out;
}

/** What becomes of a frame: left out (`drop`), its path written as the index holds it, or kept as written. */
export type FrameFate = 'drop' | 'keep' | { readonly path: string };

/**
 * A frame's file as the index holds it: the longest of `frameSuffixes` the index has (one with a
 * directory, or the file name alone when the frame has no directory).
 */
export function indexedFramePath(frame: Frame, indexed: (relPath: string) => boolean): string | undefined {
  const suffixes = frameSuffixes(frame.path);
  return suffixes.find((s, i) => (s.includes('/') || i === suffixes.length - 1) && indexed(s));
}

/**
 * Whether a frame is the project's: its file is in the index (`indexedFramePath`) or, when it is
 * not, its path is not a library's or the runtime's.
 */
export function isOwnFrame(frame: Frame, indexed: (relPath: string) => boolean): boolean {
  return indexedFramePath(frame, indexed) !== undefined || !isLibraryPath(frame.path);
}

/**
 * The fate of a frame (`search.ranking.longTerms.frames`): a library's or the runtime's frame is
 * left out; a frame whose file the index holds is written with the index's path (the user's
 * `/opt/conda/.../site-packages/` or checkout prefix says nothing); any other is kept.
 */
export function frameFate(frame: Frame, indexed: (relPath: string) => boolean): FrameFate {
  const path = indexedFramePath(frame, indexed);
  if (path !== undefined) return path === frame.path ? 'keep' : { path };
  return isLibraryPath(frame.path) ? 'drop' : 'keep';
}
