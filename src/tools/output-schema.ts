import * as z from 'zod';
import { TOOL_ERROR_CODES } from './envelope.js';

/**
 * The output side of the tool contract as zod schemas: each tool declares the shape of its `data`
 * (`ToolDefinition.output`), and the envelope around it is the same for every tool. MCP clients
 * get it as the tool's `outputSchema` and validate `structuredContent` against it.
 *
 * Objects inside `data` and `meta` are open (`additionalProperties` allowed): a field added
 * later must not make an older client reject the whole result. The required fields and their
 * types are the contract. The envelope itself is closed: it has exactly ok, data, error and meta.
 */

const omittedSchema = z.looseObject({ field: z.string(), count: z.number().int(), items: z.array(z.string()).optional() });

const metaSchema = z.looseObject({
  truncated: z.boolean(),
  bytes: z.number().int(),
  warnings: z.array(z.string()),
  omitted: z.array(omittedSchema).optional(),
  tokens: z.number().int().optional(),
});

/** `data` of a failed envelope (envelope.ts `ToolErrorData`). */
const errorDataSchema = z.looseObject({
  message: z.string(),
  reason: z.string(),
  hint: z.string().optional(),
  suggestions: z.array(z.string()).optional(),
  issues: z.array(z.string()).optional(),
});

/**
 * The envelope of one tool: its data on success, the failure's details otherwise. `meta` fields
 * only some tools fill (`source`) are declared by those tools alone, so the others' schemas stay as they are.
 */
export function envelopeSchema(data: z.ZodType, meta: z.ZodRawShape = {}): z.ZodType {
  return z.object({ ok: z.boolean(), data: z.union([data, errorDataSchema]), error: z.enum(TOOL_ERROR_CODES as [string, ...string[]]).nullable(), meta: metaSchema.extend(meta) });
}

/** A search hit (render/search-text.ts `ToolHit`). */
export const hitSchema = z.looseObject({
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  score: z.number(),
  language: z.string(),
  kind: z.string(),
  symbol: z.string().optional(),
  container: z.string().optional(),
  signature: z.string().optional(),
  snippet: z.string(),
  chunk_hash: z.string(),
  collection: z.string().optional(),
  cite: z.string().optional(),
});

/** A definition as symbol tools return it (symbol-tools.ts `toSymbol`). */
export const symbolSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  container: z.string().optional(),
  signature: z.string(),
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  exported: z.boolean(),
  match: z.string().optional(),
});

/** A file a change touches (write tools). */
export const changedFileSchema = z.looseObject({ path: z.string(), status: z.string(), additions: z.number().int(), deletions: z.number().int() });
