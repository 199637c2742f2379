import type { ToolDefinition } from './tool.js';

export const symbolTools: readonly ToolDefinition[] = [];
