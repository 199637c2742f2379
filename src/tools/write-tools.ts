import * as z from 'zod';
import { EngineError, isEngineError, type ChangeRequest, type ChangedFile } from '../index.js';
import { changedFileSchema } from './output-schema.js';
import { renderApplied } from './render/status-text.js';
import { defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from './tool.js';

/** An applied change (a staged one is a `requires_confirmation` failure carrying its diff and hash). */
const appliedOutput = z.looseObject({ applied: z.literal(true), hash: z.string(), files: z.array(changedFileSchema), reindexed: z.number().int() });

/**
 * A staged proposal rides in the failed envelope's data, and a failure is not cut by the bounding
 * (../shared/seeds §17.2 caps every result at 200 KB): so the diff shown to the agent is cut here,
 * at a line, and the file list capped. The hash always covers the whole change; the host can get
 * the full diff from `engine.proposeChange`.
 */
const MAX_STAGED_DIFF_BYTES = 100_000;
const MAX_STAGED_FILES = 500;

const FLOW =
  'Changes need confirmation: called without confirmation_token, it validates the change, writes nothing and fails with error "requires_confirmation", ' +
  'data.diff (the change as a canonical diff) and data.hash. Show that diff to the user; if they accept, the host gives you a token: call again with the same arguments plus confirmation_token. ' +
  'Tokens come from the host only, are single-use and expire after about a minute; never invent one. The change applies to every file or to none, and the index is refreshed.';

const TOKEN_ARG = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('Token from the host (the user confirmed this change). Leave it out to stage the change and get its diff and hash.');

interface ApplyData {
  readonly applied: true;
  readonly hash: string;
  readonly files: readonly ChangedFile[];
  readonly reindexed: number;
}

/** Stages or applies one change under the host's write policy; `autonomous` mints its own token. */
async function run(request: ChangeRequest, token: string | undefined, ctx: ToolContext): Promise<ToolOutput<ApplyData>> {
  if (ctx.writePolicy === 'read-only') throw new EngineError('PATH_DENIED', { path: request.kind === 'edits' ? request.path : '(diff)', reason: 'the host runs scry read-only' });
  let confirmationToken = token;
  if (confirmationToken === undefined && ctx.writePolicy === 'autonomous') {
    const proposal = await ctx.engine.proposeChange(request);
    confirmationToken = ctx.engine.mintConfirmationToken({ hash: proposal.hash });
  }
  try {
    const applied = await ctx.engine.applyChange(request, { confirmationToken });
    const warnings = applied.reindexError ? [`files written, but the index was not refreshed: ${applied.reindexError}`] : [];
    return { data: { applied: true, hash: applied.hash, files: applied.files, reindexed: applied.reindexed }, warnings };
  } catch (err) {
    throw isEngineError(err, 'CONFIRMATION_REQUIRED') ? fitStaged(err) : err;
  }
}

/** The staged proposal, cut to fit one tool result (whole lines of the diff, the first files). */
function fitStaged(err: EngineError): EngineError {
  const { diff, files } = err.data as { diff: string; files: readonly ChangedFile[] };
  const bytes = Buffer.byteLength(JSON.stringify(diff), 'utf8');
  const cutFiles = files.length > MAX_STAGED_FILES;
  if (bytes <= MAX_STAGED_DIFF_BYTES && !cutFiles) return err;
  let shown = diff;
  if (bytes > MAX_STAGED_DIFF_BYTES) {
    const lines = diff.split('\n');
    const kept: string[] = [];
    let used = 0;
    for (const line of lines) {
      used += Buffer.byteLength(JSON.stringify(line), 'utf8');
      if (used > MAX_STAGED_DIFF_BYTES) break;
      kept.push(line);
    }
    shown = `${kept.join('\n')}\n`;
  }
  return new EngineError('CONFIRMATION_REQUIRED', {
    ...err.data,
    diff: shown,
    files: files.slice(0, MAX_STAGED_FILES),
    ...(shown !== diff ? { diff_truncated: true, diff_bytes: Buffer.byteLength(diff, 'utf8') } : {}),
    ...(cutFiles ? { files_omitted: files.length - MAX_STAGED_FILES } : {}),
  });
}

const applyUnifiedDiff = defineTool({
  name: 'apply_unified_diff',
  title: 'Apply unified diff',
  description:
    'Change files with a unified diff (git style: `--- a/PATH`, `+++ b/PATH`, `@@ -START,COUNT +START,COUNT @@` hunks; ' +
    '`--- /dev/null` adds a file, `+++ /dev/null` deletes one). Hunks must match the current text exactly: read the lines first. ' +
    'Renames, binary patches and files outside the project or excluded from the index (secrets, build output, ignored) are refused. ' +
    `${FLOW} ` +
    'Example: {"diff": "--- a/src/math.ts\\n+++ b/src/math.ts\\n@@ -1,3 +1,3 @@\\n export function add(a: number, b: number) {\\n-  return a - b;\\n+  return a + b;\\n }\\n"}',
  input: {
    diff: z.string().min(1).describe('The unified diff, at most 1 MB; several files allowed, each named once. Context lines start with a space.'),
    confirmation_token: TOKEN_ARG,
  },
  readOnly: false,
  bound: { list: 'files', label: (f) => String((f as ChangedFile).path) },
  output: appliedOutput,
  render: renderApplied,
  handler: async (args, ctx) => run({ kind: 'diff', diff: args.diff }, args.confirmation_token, ctx),
});

const EDIT = z
  .object({
    start_line: z.number().int().min(1).describe('First line of the replaced range, 1-based.'),
    start_col: z.number().int().min(0).describe('Where the range starts in start_line: 0-based offset in UTF-16 code units.'),
    end_line: z.number().int().min(1).describe('Last line of the range, 1-based.'),
    end_col: z.number().int().min(0).describe('Where the range ends in end_line (exclusive); the line length stops before its line break, col 0 of the next line takes it.'),
    replacement: z.string().describe('The new text for the range; "" deletes it. Line breaks follow the file (CRLF files get CRLF).'),
  })
  .strict()
  .describe('One replacement; ranges refer to the file before any edit of this call.');

const applyTextEdits = defineTool({
  name: 'apply_text_edits',
  title: 'Apply text edits',
  description:
    'Replace ranges of one file (LSP-style edits; all positions refer to the file before the call; edits must not overlap). ' +
    'An empty range inserts, an empty replacement deletes. Prefer it to a diff for small, precise changes. ' +
    `${FLOW} ` +
    'Example: {"path": "src/math.ts", "edits": [{"start_line": 2, "start_col": 9, "end_line": 2, "end_col": 14, "replacement": "a + b"}]}',
  input: {
    path: z.string().min(1).max(1024).describe('Path of the file to change, relative to the project root.'),
    edits: z.array(EDIT).min(1).describe('The replacements, at most 1000, in any order.'),
    confirmation_token: TOKEN_ARG,
  },
  readOnly: false,
  bound: { list: 'files', label: (f) => String((f as ChangedFile).path) },
  output: appliedOutput,
  render: renderApplied,
  handler: async (args, ctx) => {
    const edits = args.edits.map((e) => ({ startLine: e.start_line, startCol: e.start_col, endLine: e.end_line, endCol: e.end_col, replacement: e.replacement }));
    return run({ kind: 'edits', path: args.path, edits }, args.confirmation_token, ctx);
  },
});

/** The confirmation-gated write tools (../shared/seeds §17.4.2); hidden under the read-only policy. */
export const writeTools: readonly ToolDefinition[] = [applyUnifiedDiff, applyTextEdits] as readonly ToolDefinition[];
