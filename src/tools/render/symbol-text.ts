import { count, fenceFor, fenceTag, numberedLines, quoted, span, type TextDoc } from './text-doc.js';

interface SymbolData {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly container?: string;
  readonly signature: string;
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly exported: boolean;
  readonly match?: string;
}

/** `parseConfig (function, exported) at src/a.ts:3-10`, then its signature and the id to pass on. */
function symbolLine(s: SymbolData): string {
  const flags = [s.kind, s.exported ? 'exported' : '', s.match && s.match !== 'exact' ? `${s.match} match` : ''].filter((f) => f !== '').join(', ');
  const lines = [`${s.container ? `${s.container}.` : ''}${s.name} (${flags}) at ${span(s.path, s.start_line, s.end_line)}`];
  if (s.signature !== '') lines.push(`   ${s.signature}`);
  lines.push(`   id: ${s.id}`);
  return lines.join('\n');
}

/** search_symbols: each definition with kind, signature, location and the id to pass on. */
export function renderSymbols(data: { readonly symbols: readonly SymbolData[]; readonly resolution?: string }, args: Readonly<Record<string, unknown>>): TextDoc {
  const subject = typeof args.name === 'string' ? ` for ${quoted(args.name)}` : '';
  const how = data.resolution === 'lsp' ? ' (names and language server)' : '';
  return { head: [`${count(data.symbols.length, 'definition')}${subject}${how}`], items: data.symbols.map((s, i) => `${i + 1}. ${symbolLine(s)}`), noun: 'definitions' };
}

interface DefinitionData extends SymbolData {
  readonly language: string;
  readonly text: string;
  readonly truncated: boolean;
  readonly alternatives: readonly string[];
  readonly implementations?: readonly string[] | undefined;
}

/** get_symbol_definition: where it is, its signature, then its source lines numbered in a fence. */
export function renderDefinition(data: DefinitionData): TextDoc {
  const fence = fenceFor(data.text);
  const tail = data.alternatives.length > 0 ? [`other definitions of ${data.name}: ${data.alternatives.join(', ')}`] : [];
  if (data.implementations) tail.push(data.implementations.length > 0 ? `implementations: ${data.implementations.join(', ')}` : 'implementations: none found');
  if (data.truncated) tail.unshift(`(definition cut: it ends at line ${data.end_line}; read_file reads the rest)`);
  return {
    head: [`${data.kind} ${data.container ? `${data.container}.` : ''}${data.name} at ${span(data.path, data.start_line, data.end_line)}${data.exported ? ' (exported)' : ''}`, `id: ${data.id}`, ...(data.signature !== '' ? [`signature: ${data.signature}`] : [])],
    items: numberedLines(data.text, data.start_line),
    noun: 'lines',
    separator: '\n',
    wrap: { open: `${fence}${fenceTag(data.language, data.path)}`, close: fence },
    tail,
  };
}

interface ReferencesData {
  readonly name: string;
  readonly total: number;
  readonly truncated: boolean;
  readonly files: ReadonlyArray<{ readonly path: string; readonly references: ReadonlyArray<{ readonly line: number; readonly column: number; readonly kind: string; readonly text: string }> }>;
}

/** get_references: grouped by file, one `line:column kind: text` line per reference. */
export function renderReferences(data: ReferencesData): TextDoc {
  const shown = data.files.reduce((n, f) => n + f.references.length, 0);
  const more = data.truncated || data.total > shown ? ` (of ${data.total})` : '';
  return {
    head: [`${count(shown, 'reference')}${more} to ${quoted(data.name)} in ${count(data.files.length, 'file')}`],
    items: data.files.map((f) => [`${f.path} (${f.references.length})`, ...f.references.map((r) => `  ${r.line}:${r.column} ${r.kind}: ${r.text}`)].join('\n')),
    noun: 'files',
  };
}

interface RelatedData {
  readonly path: string;
  readonly total: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly score: number; readonly reasons: readonly string[] }>;
}

/** related_files: each file with its score and the reasons it is related. */
export function renderRelated(data: RelatedData): TextDoc {
  const more = data.total > data.files.length ? ` (of ${data.total})` : '';
  return {
    head: [`${count(data.files.length, 'related file')}${more} for ${data.path}`],
    items: data.files.map((f, i) => `${i + 1}. ${f.path} (score ${Math.round(f.score * 1000) / 1000}): ${f.reasons.join('; ')}`),
    noun: 'files',
    separator: '\n',
  };
}
