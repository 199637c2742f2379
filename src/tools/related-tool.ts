import * as z from 'zod';
import { renderRelated } from './render/symbol-text.js';
import { defineTool, limitArg, type ToolDefinition } from './tool.js';

const relatedFilesTool = defineTool({
  name: 'related_files',
  title: 'Related files',
  description:
    'List the files related to one file, ranked: its tests, the files it imports and that import it, and the files calling its ' +
    'definitions or defining what it calls (matched by name, not type-resolved). Each comes with its score and reasons. ' +
    'Example: {"path": "src/store/database.ts", "limit": 10}',
  input: {
    path: z.string().min(1).max(1000).describe('File path relative to the project root, e.g. "src/store/database.ts".'),
    limit: limitArg(200, 20, 'Related files'),
  },
  readOnly: true,
  bound: { list: 'files', label: (f) => String((f as { path: string }).path) },
  output: z.looseObject({
    path: z.string(),
    total: z.number().int(),
    files: z.array(z.looseObject({ path: z.string(), score: z.number(), reasons: z.array(z.string()), relations: z.looseObject({}) })),
  }),
  render: renderRelated,
  handler: async (args, ctx) => {
    const related = await ctx.engine.related(args.path, { limit: args.limit });
    const warnings = related.files.length === 0 ? ['no related files found: the file has no indexed imports, importers, tests or callers'] : [];
    if (related.total > related.files.length) warnings.push(`${related.total} related files found; the best ${related.files.length} returned`);
    return { data: { path: related.path, total: related.total, files: related.files }, warnings };
  },
});

export const relatedTools: readonly ToolDefinition[] = [relatedFilesTool];
