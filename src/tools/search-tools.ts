import type { ToolDefinition } from './tool.js';

export const searchTools: readonly ToolDefinition[] = [];
