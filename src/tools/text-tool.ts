import type { ToolDefinition } from './tool.js';

/** search_text: placeholder until the text scanner lands. */
export const textTools: readonly ToolDefinition[] = [];
