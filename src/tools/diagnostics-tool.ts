import { z } from 'zod';
import { renderDiagnostics } from './render/diagnostics-text.js';
import { defineTool, limitArg, type ToolDefinition } from './tool.js';

const getDiagnostics = defineTool({
  name: 'get_diagnostics',
  title: 'Get diagnostics',
  description:
    'Type and compiler errors of a file (no path: the whole tsconfig project), from its language server or the TypeScript compiler; `meta.source` says which. ' +
    'Example: {"path": "src/main.ts"}',
  input: {
    path: z.string().min(1).max(1024).optional().describe('File relative to the root.'),
    limit: limitArg(1000, 100, 'Diagnostics'),
  },
  readOnly: true,
  bound: { list: 'diagnostics', label: (d) => `${String((d as { path: string }).path)}:${String((d as { line: number }).line)}` },
  output: z.looseObject({
    path: z.string().nullable(),
    total: z.number().int(),
    truncated: z.boolean(),
    source: z.string(),
    diagnostics: z.array(z.looseObject({ path: z.string(), line: z.number().int(), column: z.number().int(), end_line: z.number().int(), end_column: z.number().int(), severity: z.string(), message: z.string() })),
  }),
  meta: { source: z.string().optional() },
  render: renderDiagnostics,
  handler: async (args, ctx) => {
    const r = await ctx.engine.diagnostics(args.path, { limit: args.limit });
    const diagnostics = r.diagnostics.map((d) => ({ path: d.path, line: d.line, column: d.column, end_line: d.endLine, end_column: d.endColumn, severity: d.severity, message: d.message, ...(d.code ? { code: d.code } : {}) }));
    const warnings = r.source.startsWith('none:') ? [`no diagnostics available: ${r.source.slice(6)}`] : r.truncated ? [`${r.total} diagnostics, ${args.limit} returned`] : [];
    return { data: { path: r.path, total: r.total, truncated: r.truncated, source: r.source, diagnostics }, warnings, source: r.source };
  },
});

export const diagnosticsTools: readonly ToolDefinition[] = [getDiagnostics];
