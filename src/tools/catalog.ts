import { diagnosticsTools } from './diagnostics-tool.js';
import { fileTools } from './file-tools.js';
import { mapTools } from './map-tool.js';
import { relatedTools } from './related-tool.js';
import { searchTools } from './search-tools.js';
import { statusTools } from './status-tool.js';
import { symbolTools } from './symbol-tools.js';
import { textTools } from './text-tool.js';
import type { ToolDefinition, WritePolicy } from './tool.js';
import { writeTools } from './write-tools.js';

/**
 * The tool catalogue, in the order clients list it: search first (what agents need most), then
 * navigation (symbols, the repo map), files, status, and the confirmation-gated writes last. Declared once; MCP, the CLI
 * (`scry tool`) and the local-model runner all serve this list.
 */
export const TOOLS: readonly ToolDefinition[] = [...searchTools, ...textTools, ...symbolTools, ...diagnosticsTools, ...relatedTools, ...mapTools, ...fileTools, ...statusTools, ...writeTools] as readonly ToolDefinition[];

/** The tools a host with this write policy offers: `read-only` hides the write tools. */
export function toolsFor(policy: WritePolicy): readonly ToolDefinition[] {
  return policy === 'read-only' ? TOOLS.filter((t) => t.readOnly) : TOOLS;
}
