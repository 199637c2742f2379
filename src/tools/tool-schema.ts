import * as z from 'zod';
import { toolsFor } from './catalog.js';
import { envelopeSchema } from './output-schema.js';
import { argsSchema } from './run-tool.js';
import type { ToolDefinition, WritePolicy } from './tool.js';

/** A JSON Schema object (draft 2020-12 keywords, without `$schema`). */
export type JsonSchema = Record<string, unknown>;

/** A tool as OpenAI-style chat APIs and prompts for local models list it. */
export interface OpenAiToolDefinition {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    /** The arguments' JSON Schema ({@link toolJsonSchema}). */
    readonly parameters: JsonSchema;
  };
}

/**
 * The JSON Schema of a tool's arguments, generated from the same zod schema runTool validates
 * with (fields, `max_tokens`, unknown keys rejected as `additionalProperties: false`), so the
 * schema a model sees cannot drift from what is accepted. It describes the input side: fields
 * with defaults are optional. `$schema` is left out: hosts embed it in a larger document (a tool
 * list, a prompt) and it only costs tokens.
 */
export function toolJsonSchema(tool: ToolDefinition): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(argsSchema(tool), { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return schema;
}

/**
 * The JSON Schema of a tool's result envelope (MCP `outputSchema`), without `$schema` and
 * without what only costs tokens: the safe-integer bounds zod puts on every integer, and
 * `additionalProperties: {}` on open objects (JSON Schema's default).
 */
export function toolOutputJsonSchema(tool: ToolDefinition): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(envelopeSchema(tool.output, tool.meta), { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return compact(schema) as JsonSchema;
}

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'additionalProperties' && typeof value === 'object' && value !== null && Object.keys(value).length === 0) continue;
    out[key] = compact(value);
  }
  return out;
}

/**
 * The catalogue's tools under a write policy (`read-only` leaves out the write tools), in
 * catalogue order, as OpenAI-style definitions `[{type:'function', function:{name, description,
 * parameters}}]`: for a host that lists the tools in a local model's prompt, or passes them to an
 * OpenAI-compatible server.
 */
export function openAiToolDefinitions(policy: WritePolicy): OpenAiToolDefinition[] {
  return toolsFor(policy).map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) } }));
}
