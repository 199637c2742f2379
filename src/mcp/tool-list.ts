import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../tools/tool.js';
import { toolJsonSchema, toolOutputJsonSchema } from '../tools/tool-schema.js';

/**
 * MCP behaviour hints. Nothing scry does reaches outside the project (`openWorldHint: false`).
 * Read tools are safe to repeat. Write tools edit or delete lines of files, so they are marked
 * destructive and not idempotent, which prompts careful clients to ask the user first.
 */
export function annotationsOf(tool: ToolDefinition): ToolAnnotations {
  return tool.readOnly
    ? { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    : { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
}

/** The `tools/list` entries for these tools, in catalogue order. */
export function listedTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    // the same zod object runTool validates with, so the advertised and the enforced contract cannot drift
    inputSchema: toolJsonSchema(tool) as Tool['inputSchema'],
    // the envelope around the tool's data; clients validate structuredContent against it
    outputSchema: toolOutputJsonSchema(tool) as Tool['outputSchema'],
    annotations: annotationsOf(tool),
  }));
}
