// The agent tool surface as a library (`import { runTool } from 'scry/tools'`): the same
// catalogue and execution path the MCP server and `scry tool` use. Named exports only; the list
// is pinned by test/unit/public-api.test.ts.
export { runTool, argsSchema } from './run-tool.js';
export { TOOLS, toolsFor } from './catalog.js';
export { TOOL_ERROR_CODES } from './envelope.js';
export type { Envelope, EnvelopeMeta, Omitted, ToolErrorCode, ToolErrorData } from './envelope.js';
export { MAX_ENVELOPE_BYTES } from './bound.js';
export type { ToolDefinition, ToolContext, ToolOutput, WritePolicy } from './tool.js';
export { toolJsonSchema, openAiToolDefinitions } from './tool-schema.js';
export type { JsonSchema, OpenAiToolDefinition } from './tool-schema.js';
export { parseAssistantOutput, runToolCalls, renderToolResults, renderToolCallError, runAssistantTurn, MAX_TOOL_CALL_CHARS, MAX_CALLS_PER_TURN } from './tool-calls.js';
export type { CanonicalToolCall, AssistantOutput, ToolCallResult, AssistantTurn } from './tool-calls.js';
