import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as tools from '../../../src/tools/index.js';

// `scry/tools` is public API like `scry`: a red pin means "be deliberate".
describe('scry/tools public API pin', () => {
  it('exports exactly these runtime values', () => {
    expect(Object.keys(tools).sort()).toEqual([
      'MAX_CALLS_PER_TURN', 'MAX_ENVELOPE_BYTES', 'MAX_TOOL_CALL_CHARS', 'TOOLS', 'TOOL_ERROR_CODES', 'argsSchema', 'openAiToolDefinitions',
      'parseAssistantOutput', 'renderToolCallError', 'renderToolResults', 'runAssistantTurn', 'runTool', 'runToolCalls', 'toolJsonSchema', 'toolsFor',
    ]);
    expect(tools.TOOL_ERROR_CODES).toEqual(['invalid_arguments', 'not_found', 'permission_denied', 'requires_confirmation', 'too_large', 'internal_error']);
  });

  it('is reachable as the package subpath scry/tools', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(pkg.exports['./tools']).toEqual({ types: './dist/tools/index.d.ts', import: './dist/tools/index.js' });
  });
});
