import type { DiagnosticsReport, FileOutline, ReferencesResult, RelatedFiles, SymbolHit } from '../index.js';

export function formatSymbols(query: string, hits: readonly SymbolHit[], how: { servers?: readonly string[] | undefined; fallback?: string | undefined } = {}): string {
  const note = how.servers ? `names and language server (${how.servers.join(', ')})${how.fallback ? `; ${how.fallback}` : ''}\n` : how.fallback ? `matched by name: ${how.fallback}\n` : '';
  if (hits.length === 0) return `no symbol matches "${query}"\n${note}`;
  const lines = hits.map((h) => {
    const where = `${h.path}:${h.startLine}:${h.startCol}`;
    const tag = h.match === 'exact' ? '' : ` (${h.match})`;
    const container = h.container ? `${h.container}.` : '';
    return `${h.kind.padEnd(9)} ${container}${h.name}${tag}  ${where}${h.exported ? '' : '  [private]'}\n          ${h.signature}`;
  });
  return `${lines.join('\n')}\n${note}`;
}

export function formatReferences(r: ReferencesResult): string {
  if (r.total === 0) return `no references to "${r.name}"\n`;
  const out: string[] = [];
  for (const g of r.files) {
    out.push(`${g.path} (${g.references.length})`);
    for (const ref of g.references) out.push(`  ${String(ref.line).padStart(5)}:${String(ref.column).padEnd(4)} ${ref.kind.padEnd(10)} ${ref.text}`);
  }
  const more = r.parseCapped ? ` (more exist: the search stops after parsing ${r.parsed} files)` : r.truncated ? ' (more exist: raise -k)' : '';
  out.push(`${r.total} reference(s) in ${r.files.length} file(s)${more}`);
  if (r.resolution === 'lsp') out.push(`resolved by type (language server: ${r.server})`);
  else if (r.fallback) out.push(`matched by name: ${r.fallback}`);
  return `${out.join('\n')}\n`;
}

export function formatOutline(o: FileOutline): string {
  const out = [`${o.path} · ${o.language} · ${o.lines} lines · parser ${o.parser}${o.fallback ? ` (fallback: ${o.fallback})` : ''}`];
  if (o.imports.length > 0) {
    out.push('imports:');
    for (const i of o.imports) out.push(`  ${String(i.line).padStart(5)}  ${i.kind} ${i.source}${i.resolved ? ` → ${i.resolved}` : ''}${i.names.length ? `  {${i.names.join(', ')}}` : ''}`);
  }
  if (o.symbols.length > 0) {
    out.push('symbols:');
    for (const s of o.symbols) {
      const depth = s.container ? s.container.split('.').length : 0;
      const head = s.signature.includes(`${s.kind} `) ? s.signature : `${s.kind} ${s.signature}`;
      out.push(`  ${String(s.startLine).padStart(5)}  ${'  '.repeat(depth)}${head}${s.exported ? '' : '  [private]'}`);
    }
  }
  if (o.importedBy.length > 0) out.push(`imported by: ${o.importedBy.map((i) => `${i.path}:${i.line}`).join(', ')}`);
  if (o.tests.length > 0) out.push(`tests: ${o.tests.join(', ')}`);
  if (o.testedFiles.length > 0) out.push(`tests of: ${o.testedFiles.join(', ')}`);
  return `${out.join('\n')}\n`;
}

export function formatRelated(r: RelatedFiles): string {
  if (r.files.length === 0) return `no related files for ${r.path}\n`;
  const width = Math.max(...r.files.map((f) => String(f.score).length));
  const out = r.files.map((f) => `${String(f.score).padStart(width)}  ${f.path}\n${' '.repeat(width + 2)}${f.reasons.join('; ')}`);
  out.push(`${r.files.length} of ${r.total} related file(s) of ${r.path}${r.total > r.files.length ? ' (raise -k for more)' : ''}`);
  if (r.withoutUses) out.push(`${r.withoutUses} code file(s) were indexed by line windows (fallbacks): callers among them are not listed`);
  return `${out.join('\n')}\n`;
}

/** `source: …`, then `path:line:col  severity  CODE  message`, one per line. */
export function formatDiagnostics(r: DiagnosticsReport): string {
  const out = [`${r.total} diagnostic(s)${r.path ? ` in ${r.path}` : ''} · source: ${r.source}`];
  for (const d of r.diagnostics) out.push(`${d.path}:${d.line}:${d.column}  ${d.severity.padEnd(7)} ${d.code ? `${d.code}  ` : ''}${d.message.replace(/\s*\n\s*/g, ' ')}`);
  if (r.truncated) out.push(`(${r.total - r.diagnostics.length} more: raise -k)`);
  return `${out.join('\n')}\n`;
}
