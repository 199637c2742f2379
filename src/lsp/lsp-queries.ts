import type { Diagnostic, Location, LocationLink, SymbolInformation, WorkspaceSymbol } from 'vscode-languageserver-protocol/node';
import { EngineError } from '../core/errors.js';
import type { LspClient } from './lsp-client.js';
import { LSP } from './lsp-methods.js';
import { pathInRoot, uriOf } from './uri-paths.js';

/** A place in a file of the root: 1-based line and column (UTF-16 code units, as LSP counts). */
export interface SourcePosition {
  readonly path: string;
  readonly line: number;
  readonly column: number;
}

/** One diagnostic as scry reports it, whichever source it came from. */
export interface FileDiagnostic {
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly severity: 'error' | 'warning' | 'info' | 'hint';
  readonly message: string;
  /** The checker's own code (`TS2322`, `reportAttributeAccessIssue`), when it gives one. */
  readonly code?: string | undefined;
}

/** A document at a position, as the server needs it: synced first with the text scry read. */
export interface DocumentAt {
  readonly root: string;
  readonly path: string;
  readonly languageId: string;
  readonly text: string;
  /** 1-based. */
  readonly line: number;
  readonly column: number;
}

type Kind = 'definition' | 'references' | 'implementation';

/** Definitions, references or implementations of the symbol at a position, inside the root (others dropped). */
export async function locationsAt(client: LspClient, kind: Kind, at: DocumentAt): Promise<SourcePosition[]> {
  if (kind === 'implementation') requireProvider(client, 'implementationProvider', 'textDocument/implementation');
  const uri = uriOf(at.root, at.path);
  await client.ready(uri, at.languageId, at.text);
  const position = { textDocument: { uri }, position: { line: at.line - 1, character: at.column - 1 } };
  const raw: Location | Location[] | LocationLink[] | null =
    kind === 'references'
      ? await client.request<Location[] | null>(LSP.references, { ...position, context: { includeDeclaration: true } })
      : kind === 'definition'
        ? await client.request<Location | Location[] | LocationLink[] | null>(LSP.definition, position)
        : await client.request<Location | Location[] | LocationLink[] | null>(LSP.implementation, position);
  return normaliseLocations(at.root, raw);
}

/** LSP_FAILED before asking a server for what it did not announce (pyright has no textDocument/implementation). */
function requireProvider(client: LspClient, provider: 'implementationProvider' | 'workspaceSymbolProvider', method: string): void {
  if (!client.supports(provider)) throw new EngineError('LSP_FAILED', { server: client.name, reason: `it does not support ${method}` });
}

/** A symbol a server's workspace/symbol names, inside the root. */
export interface WorkspaceSymbolHit {
  readonly name: string;
  readonly container?: string | undefined;
  readonly at: SourcePosition;
}

/**
 * workspace/symbol for a query, with `at`'s document synced and analysed first (tsserver searches
 * the projects of its open files: with none open it has no project). Symbols outside the root dropped.
 */
export async function workspaceSymbols(client: LspClient, at: Omit<DocumentAt, 'line' | 'column'>, query: string): Promise<WorkspaceSymbolHit[]> {
  requireProvider(client, 'workspaceSymbolProvider', 'workspace/symbol');
  await client.ready(uriOf(at.root, at.path), at.languageId, at.text);
  const raw = await client.request<Array<SymbolInformation | WorkspaceSymbol> | null>(LSP.workspaceSymbol, { query });
  const out: WorkspaceSymbolHit[] = [];
  for (const s of raw ?? []) {
    const [pos] = normaliseLocations(at.root, 'range' in s.location ? s.location : { uri: s.location.uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } });
    if (pos) out.push({ name: s.name, ...(s.containerName ? { container: s.containerName } : {}), at: pos });
  }
  return out;
}

/** Locations or links → positions inside the root, deduplicated, in path then line order. */
export function normaliseLocations(root: string, raw: Location | Location[] | LocationLink[] | null | undefined): SourcePosition[] {
  const list = raw === null || raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const seen = new Set<string>();
  const out: SourcePosition[] = [];
  for (const item of list) {
    const uri = 'targetUri' in item ? item.targetUri : item.uri;
    const start = 'targetUri' in item ? item.targetSelectionRange.start : item.range.start;
    const path = pathInRoot(root, uri);
    if (path === undefined) continue;
    const key = `${path}:${start.line}:${start.character}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, line: start.line + 1, column: start.character + 1 });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column));
}

const SEVERITY: Record<number, FileDiagnostic['severity']> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

/** A server's diagnostic as scry reports it. */
export function fromLspDiagnostic(path: string, d: Diagnostic): FileDiagnostic {
  return {
    path,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
    severity: SEVERITY[d.severity ?? 1] ?? 'error',
    message: typeof d.message === 'string' ? d.message : d.message.value,
    ...(d.code !== undefined ? { code: typeof d.code === 'number' && d.source?.startsWith('typescript') ? `TS${d.code}` : String(d.code) } : {}),
  };
}
