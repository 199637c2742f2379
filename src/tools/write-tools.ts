import type { ToolDefinition } from './tool.js';

/** apply_unified_diff, apply_text_edits: placeholder until the write path lands. */
export const writeTools: readonly ToolDefinition[] = [];
