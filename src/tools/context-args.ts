/**
 * The arguments of `retrieve_context` beyond the query (issue 20: the seed 002/004 inputs), their
 * zod shape and their translation into `engine.context` options. The translation is pure and
 * validates with the engine's own check, so a bad combination (a selection without a file, an
 * empty query with nothing to go on) is `invalid_arguments` before any retrieval.
 */
import { z } from 'zod';
import { checkContextRequest, CONTEXT_TASKS, type ContextOptions } from '../index.js';

export const contextTaskArgs = {
  task: z
    .enum(CONTEXT_TASKS)
    .optional()
    .describe('The strategy: fix, test (tests of current_path), refactor (its callers, imports, callees), explain (what the cursor calls), complete (signatures, then implementations), qa.'),
  log: z.string().max(1_000_000).optional().describe('Output of a test run, build or crash: its failing tests and frames are kept.'),
  diagnostics: z
    .array(z.object({ path: z.string().min(1).max(1024), line: z.number().int().min(1), message: z.string().max(4096), severity: z.string().max(40).optional(), code: z.union([z.string().max(80), z.number()]).optional() }))
    .max(500)
    .optional()
    .describe('Editor diagnostics.'),
  open_files: z.array(z.string().min(1).max(1024)).max(100).optional().describe('Files open in the editor.'),
  diff: z.string().max(1_000_000).optional().describe('A unified git diff.'),
  selection_start: z.number().int().min(1).optional().describe('Selection start line.'),
  selection_end: z.number().int().min(1).optional().describe('Selection end line.'),
  draft: z.string().max(65_536).optional().describe('A draft: complete looks up what it mentions.'),
};

export interface ContextToolArgs {
  readonly query: string;
  readonly current_path?: string | undefined;
  readonly current_line?: number | undefined;
  readonly task?: ContextOptions['task'];
  readonly log?: string | undefined;
  readonly diagnostics?: ContextOptions['diagnostics'];
  readonly open_files?: readonly string[] | undefined;
  readonly diff?: string | undefined;
  readonly selection_start?: number | undefined;
  readonly selection_end?: number | undefined;
  readonly draft?: string | undefined;
}

/** The engine.context options for tool arguments; throws INVALID_ARGUMENT (as engine.context would). */
export function contextRequest(args: ContextToolArgs, base: Pick<ContextOptions, 'tokens' | 'language' | 'signal'>): ContextOptions {
  const current = args.current_path !== undefined ? { path: args.current_path, line: args.current_line } : undefined;
  const selection = args.selection_start !== undefined || args.selection_end !== undefined ? { startLine: args.selection_start ?? args.selection_end!, endLine: args.selection_end ?? args.selection_start! } : undefined;
  const options: ContextOptions = {
    ...base,
    current,
    task: args.task,
    log: args.log,
    diagnostics: args.diagnostics,
    openFiles: args.open_files,
    diff: args.diff,
    selection,
    draft: args.draft,
  };
  checkContextRequest(args.query, options);
  return options;
}
