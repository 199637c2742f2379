import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { toolsFor } from '../../../src/tools/catalog.js';
import { argsSchema } from '../../../src/tools/run-tool.js';
import { defineTool } from '../../../src/tools/tool.js';
import { openAiToolDefinitions, toolJsonSchema } from '../../../src/tools/tool-schema.js';

const demo = defineTool({
  name: 'demo_search',
  title: 'Demo',
  description: 'A tool for this test. Example: {"query": "x"}',
  input: {
    query: z.string().min(1).describe('What to look for.'),
    max_results: z.number().int().min(1).max(50).default(5).describe('Results to return (1-50).'),
    paths: z.array(z.string()).optional().describe('Path globs.'),
    mode: z.enum(['lexical', 'hybrid']).optional().describe('Ranking.'),
  },
  readOnly: true,
  output: z.null(),
  render: () => ({ head: ['nothing'], items: [], noun: 'results' }),
  handler: async () => ({ data: null }),
});

describe('toolJsonSchema', () => {
  it('describes the input side of the same schema runTool validates with', () => {
    expect(toolJsonSchema(demo)).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to look for.' },
        max_results: { type: 'integer', minimum: 1, maximum: 50, default: 5, description: 'Results to return (1-50).' },
        paths: { type: 'array', items: { type: 'string' }, description: 'Path globs.' },
        mode: { type: 'string', enum: ['lexical', 'hybrid'], description: 'Ranking.' },
        max_tokens: expect.objectContaining({ type: 'integer', minimum: 64, description: expect.stringMatching(/budget/) }),
      },
      // fields with defaults are optional for the caller
      required: ['query'],
      additionalProperties: false,
    });
  });
});

describe('openAiToolDefinitions', () => {
  it('lists the catalogue under each policy in the OpenAI shape, schemas from the same source', () => {
    for (const policy of ['stage', 'autonomous', 'read-only'] as const) {
      const defs = openAiToolDefinitions(policy);
      expect(defs.map((d) => d.function.name)).toEqual(toolsFor(policy).map((t) => t.name));
      for (const [k, def] of defs.entries()) {
        const tool = toolsFor(policy)[k]!;
        expect(def).toEqual({ type: 'function', function: { name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) } });
        expect(def.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
        expect(Object.keys(def.function.parameters.properties as object)).toEqual(Object.keys(argsSchema(tool).shape));
      }
    }
    const readOnly = openAiToolDefinitions('read-only').map((d) => d.function.name);
    expect(toolsFor('stage').filter((t) => !readOnly.includes(t.name)).every((t) => !t.readOnly)).toBe(true);
  });

  it('every parameter a model sees carries a description (prompts are all a local model has)', () => {
    for (const def of openAiToolDefinitions('stage')) {
      for (const [field, schema] of Object.entries(def.function.parameters.properties as Record<string, { description?: string }>)) {
        expect(schema.description, `${def.function.name}.${field}`).toBeTruthy();
      }
    }
  });

  it('is plain JSON (a host can put it in a prompt or a request body as is)', () => {
    const defs = openAiToolDefinitions('stage');
    expect(JSON.parse(JSON.stringify(defs))).toEqual(defs);
    expect(JSON.stringify(defs)).not.toContain('$schema');
  });
});
