import type { FileSliceData } from '../../core/file-slice.js';
import { count, fenced, fenceFor, fenceTag, numberedLines, quoted, span, type TextDoc } from './text-doc.js';

/** read_file: the place and size, then the lines numbered as the file has them, in a fence. */
export function renderFileSlice(data: FileSliceData): TextDoc {
  const fence = fenceFor(data.text);
  const rest = data.end_line < data.total_lines ? [`(file continues to line ${data.total_lines}: read from start_line ${data.end_line + 1})`] : [];
  return {
    head: [`${span(data.path, data.start_line, data.end_line)} of ${count(data.total_lines, 'line')} (${data.language}, sha256 ${data.sha256.slice(0, 12)})`],
    items: data.text === '' ? [] : numberedLines(data.text, data.start_line, data.end_line),
    noun: 'lines',
    separator: '\n',
    wrap: { open: `${fence}${fenceTag(data.language, data.path)}`, close: fence },
    tail: rest,
  };
}

interface FileListData {
  readonly total: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly language: string; readonly lines: number; readonly bytes: number }>;
}

/** list_files: one `path  language  lines  bytes` line per file, in path order. */
export function renderFileList(data: FileListData, args: Readonly<Record<string, unknown>>): TextDoc {
  const subject = typeof args.glob === 'string' ? ` matching ${quoted(args.glob)}` : '';
  const of = data.total > data.files.length ? ` of ${data.total}` : '';
  return {
    head: [`${count(data.files.length, 'file')}${of}${subject}`],
    items: data.files.map((f) => `${f.path}  ${f.language}  ${count(f.lines, 'line')}  ${f.bytes} B`),
    noun: 'files',
    separator: '\n',
  };
}

interface ContextData {
  readonly current_file?: { readonly path: string; readonly start_line: number; readonly end_line: number; readonly total_lines: number; readonly cursor_line: number | null; readonly text: string };
  readonly pieces: ReadonlyArray<{ readonly cite: string; readonly kind: string; readonly symbols?: readonly string[]; readonly hashes?: readonly string[]; readonly why?: string; readonly pinned?: true; readonly text: string }>;
  readonly tokens: number;
  readonly budget: number;
  readonly candidates: number;
  readonly task?: string;
  readonly failures?: ReadonlyArray<{ readonly file: string; readonly line: number; readonly kind: string; readonly message: string; readonly symbol?: string }>;
}

/** retrieve_context: the window of the current file, then each piece cited, with its symbols and hash, in a fence. */
export function renderContext(data: ContextData, args: Readonly<Record<string, unknown>>): TextDoc {
  const subject = typeof args.query === 'string' && args.query !== '' ? ` for ${quoted(args.query)}` : '';
  const task = data.task !== undefined && data.task !== 'qa' ? ` (task ${data.task})` : '';
  const head = [`context${subject}${task}: ${count(data.pieces.length, 'piece')} from ${count(data.candidates, 'candidate')}, ${data.tokens} of ${data.budget} tokens`];
  if (data.failures !== undefined && data.failures.length > 0) {
    head.push('', 'failures in the log:', ...data.failures.map((f) => `- ${f.kind} ${f.file}${f.line > 0 ? `:${f.line}` : ''}${f.symbol !== undefined ? ` ${f.symbol}` : ''}${f.message !== '' ? `: ${f.message}` : ''}`));
  }
  const c = data.current_file;
  if (c) {
    const cursor = c.cursor_line !== null ? `, cursor at line ${c.cursor_line}` : '';
    head.push('', `current file ${span(c.path, c.start_line, c.end_line)} of ${c.total_lines}${cursor}`, fenced(numberedLines(c.text, c.start_line).join('\n'), fenceTag(undefined, c.path)));
  }
  const items = data.pieces.map((p, i) => {
    const path = p.cite.replace(/:\d+(-\d+)?$/, '');
    const about = [
      p.kind,
      ...(p.symbols && p.symbols.length > 0 ? [`symbols: ${p.symbols.join(', ')}`] : []),
      ...(p.hashes && p.hashes.length > 0 ? [`hash ${p.hashes[0]!}`] : []),
      ...(p.why !== undefined ? [`why: ${p.why}`] : []),
      ...(p.pinned === true ? ['pinned'] : []),
    ];
    // a summary is prose about the file, not its code
    return `${i + 1}. ${p.cite} (${about.join('; ')})\n${fenced(p.text, p.kind === 'summary' ? '' : fenceTag(undefined, path))}`;
  });
  return { head, items, noun: 'pieces' };
}

interface RepoMapData {
  readonly text: string;
  readonly total_files: number;
  readonly included_files: number;
  readonly tokens: number;
  readonly truncated?: boolean;
}

/** repo_map: the map's lines as they are, in a fence (indentation carries the structure). */
export function renderRepoMap(data: RepoMapData): TextDoc {
  const fence = fenceFor(data.text);
  const lines = data.text.endsWith('\n') ? data.text.slice(0, -1).split('\n') : data.text.split('\n');
  return {
    head: [`repository map: ${data.included_files} of ${count(data.total_files, 'code file')}, ${data.tokens} tokens${data.truncated ? ' (cut)' : ''}`],
    items: data.text === '' ? [] : lines,
    noun: 'lines',
    separator: '\n',
    wrap: { open: fence, close: fence },
  };
}
