import { count, type TextDoc } from './text-doc.js';

interface DiagnosticsData {
  readonly path: string | null;
  readonly total: number;
  readonly source: string;
  readonly diagnostics: ReadonlyArray<{ readonly path: string; readonly line: number; readonly column: number; readonly severity: string; readonly message: string; readonly code?: string }>;
}

/** get_diagnostics: how many and from where, then `path:line:col severity CODE message`, one per line. */
export function renderDiagnostics(data: DiagnosticsData): TextDoc {
  return {
    head: [`${count(data.total, 'diagnostic')}${data.path ? ` in ${data.path}` : ''} (source: ${data.source})`],
    items: data.diagnostics.map((d) => `${d.path}:${d.line}:${d.column} ${d.severity}${d.code ? ` ${d.code}` : ''} ${d.message.replace(/\s*\n\s*/g, ' ')}`),
    noun: 'diagnostics',
    separator: '\n',
  };
}
