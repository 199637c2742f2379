import type { ToolDefinition } from './tool.js';

export const fileTools: readonly ToolDefinition[] = [];
