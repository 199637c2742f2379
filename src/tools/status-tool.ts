import type { ToolDefinition } from './tool.js';

export const statusTools: readonly ToolDefinition[] = [];
