import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadTokenCounter } from '../index.js';
import { MAX_ENVELOPE_BYTES } from '../tools/bound.js';
import type { Envelope } from '../tools/envelope.js';
import { envelopeDoc, type DataRenderer } from '../tools/render/envelope-text.js';
import { fitText, type TextLimits } from '../tools/render/text-doc.js';
import type { ToolDefinition } from '../tools/tool.js';

/** The caller's `max_tokens` when it is one runTool accepts (an integer of at least 64), else none. */
function maxTokensOf(args: unknown): number | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const value = (args as { max_tokens?: unknown }).max_tokens;
  return typeof value === 'number' && Number.isInteger(value) && value >= 64 && value <= 100_000 ? value : undefined;
}

/**
 * The text of a result: the whole envelope rendered for a model by the tool's renderer, under
 * the same bounds as the envelope (the 200 KB cap, and the caller's `max_tokens` counted with the
 * o200k tokenizer), cut by whole items with a line saying what was left out. Pure apart from the
 * token counter.
 */
export function resultText(envelope: Envelope, render: DataRenderer | undefined, args: unknown, limits: TextLimits): string {
  const plainArgs = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  return fitText(envelopeDoc(envelope, render, plainArgs), limits);
}

/**
 * An envelope as an MCP result: the envelope itself as `structuredContent` (validated by clients
 * against the tool's `outputSchema`), the same result as readable text in `content` (many clients
 * hand the model only the text, and the MCP spec asks for both), and `isError` on failure.
 */
export async function toCallToolResult(envelope: Envelope, tool: ToolDefinition | undefined, args: unknown): Promise<CallToolResult> {
  const maxTokens = maxTokensOf(args);
  const counter = maxTokens !== undefined ? await loadTokenCounter() : undefined;
  const text = resultText(envelope, tool?.render as DataRenderer | undefined, args, { maxBytes: MAX_ENVELOPE_BYTES, maxTokens, counter });
  return { content: [{ type: 'text', text }], structuredContent: envelope as unknown as Record<string, unknown>, isError: !envelope.ok };
}
