/**
 * `tools/list` as clients receive it: a golden file (STYLE.md habit 6) and a token budget, since
 * every MCP session carries this list in the model's context. `UPDATE_GOLDEN=1` rewrites the
 * golden; review the diff before committing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { createEngine, loadTokenCounter, type Engine } from '../../src/index.js';
import { createScryServer } from '../../src/mcp/server.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const GOLDEN = fileURLToPath(new URL('../golden/tools/tools-list.json', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/**
 * o200k tokens of the compact JSON of `tools/list` under the default (stage) policy, without the
 * output schemas: what a model reads to choose and call a tool (name, title, description, input
 * schema, hints). Model APIs take exactly these (Anthropic `input_schema`, OpenAI `parameters`);
 * `outputSchema` is for the client, which validates `structuredContent` with it (docs/DESIGN.md).
 * Measured: 4,125 for the 13 tools of the first full catalogue; the budget was ~15% above (4,750).
 * Raised to 4,850 for retrieve_context's max_chunks and max_total_bytes (+57 tokens), arguments
 * of the tool contract (../shared/seeds §17.4.1); 4,776 measured for 15 tools. Raised to 5,230 for
 * retrieve_context's task inputs (issue 20: task, log, diagnostics, open_files, diff, selection,
 * draft; +375 tokens, descriptions cut to a few words); 5,151 measured. A new tool or a
 * longer description that breaks it should earn its tokens: raise it deliberately, saying why.
 * Raised to 5,150 for get_diagnostics (198 tokens) and get_symbol_definition's `at` (a use, for a
 * language server to resolve; issue 21): 5,031 measured for 16 tools. With both (merge): 5,406.
 * Raised for search_code's and search_docs' `collections` argument (issue 22: several roots
 * searched together from one server): 4,890 measured alone; 5,520 with everything merged.
 */
const TOOLS_LIST_TOKEN_BUDGET = 5_650;
/**
 * o200k tokens of all output schemas together. Measured: 5,600 for 15 tools (about 150 of each
 * are the shared envelope); the budget is ~10% above, so a schema does not grow unnoticed.
 */
const OUTPUT_SCHEMAS_TOKEN_BUDGET = 6_200;

describe('tools/list', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;
  let listed: ListToolsResult;

  beforeAll(async () => {
    t = tempDir('scry-mcp-list-');
    mkdirSync(join(t.dir, 'repo'));
    engine = await createEngine({ root: join(t.dir, 'repo'), env: isolatedEnv(t.dir) });
    const server = createScryServer({ engine, version: '0.0.0-test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'scry-test', version: '0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    listed = await client.listTools();
    await client.close();
  });

  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('matches the golden file test/golden/tools/tools-list.json', () => {
    const actual = `${JSON.stringify(listed, null, 2)}\n`;
    if (UPDATE) {
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, actual);
      return;
    }
    const fix = 'run `UPDATE_GOLDEN=1 npx vitest run test/integration/mcp-tools-list.test.ts` and review the diff of test/golden/tools/tools-list.json';
    if (!existsSync(GOLDEN)) throw new Error(`missing ${GOLDEN}: ${fix}`);
    expect(actual, `tools/list changed (a tool, a description or an argument schema): ${fix}`).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it(`stays under ${TOOLS_LIST_TOKEN_BUDGET} tokens (o200k) without the output schemas`, async () => {
    const counter = await loadTokenCounter();
    const forModel = { tools: listed.tools.map(({ outputSchema: _o, ...tool }) => tool) };
    const tokens = counter.count(JSON.stringify(forModel));
    const perTool = forModel.tools.map((tool) => `${tool.name} ${counter.count(JSON.stringify(tool))}`).join(', ');
    console.info(`tools/list without output schemas: ${tokens} tokens (${counter.name}) for ${listed.tools.length} tools, budget ${TOOLS_LIST_TOKEN_BUDGET}\n  ${perTool}`);
    expect(tokens, `tools/list is ${tokens} tokens, over the budget of ${TOOLS_LIST_TOKEN_BUDGET}: shorten descriptions, or raise the budget deliberately`).toBeLessThanOrEqual(TOOLS_LIST_TOKEN_BUDGET);
  });

  it(`declares an output schema for every tool, ${OUTPUT_SCHEMAS_TOKEN_BUDGET} tokens (o200k) for all of them`, async () => {
    const counter = await loadTokenCounter();
    for (const tool of listed.tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.outputSchema?.required, tool.name).toEqual(['ok', 'data', 'error', 'meta']);
    }
    const tokens = counter.count(JSON.stringify(listed.tools.map((tool) => tool.outputSchema)));
    console.info(`output schemas: ${tokens} tokens (${counter.name}), budget ${OUTPUT_SCHEMAS_TOKEN_BUDGET}`);
    expect(tokens, `output schemas are ${tokens} tokens, over ${OUTPUT_SCHEMAS_TOKEN_BUDGET}: keep data schemas to the fields, or raise the budget deliberately`).toBeLessThanOrEqual(OUTPUT_SCHEMAS_TOKEN_BUDGET);
  });
});
