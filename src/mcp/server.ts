import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Engine, IndexWatch, StatusReport } from '../index.js';
import { toolsFor } from '../tools/catalog.js';
import type { Envelope } from '../tools/envelope.js';
import { runTool } from '../tools/run-tool.js';
import type { ToolContext, WritePolicy } from '../tools/tool.js';
import { serverInstructions } from './instructions.js';
import { progressSink } from './progress.js';
import { freshnessWarnings } from './freshness-warnings.js';
import { summarise } from './summary.js';
import { listedTools } from './tool-list.js';

export interface ScryServerOptions {
  readonly engine: Engine;
  /** Who may write (tools/tool.ts). `read-only` hides the write tools. Default `stage`. */
  readonly writePolicy?: WritePolicy | undefined;
  /** The engine's watch (`engine.watch()`), shared by every session of this process: tools wait for its first pass when there is no index yet. Without it tools read the index as it is. */
  readonly watch?: IndexWatch | undefined;
  /** Reported as the server version at initialize. */
  readonly version: string;
}

/**
 * Makes MCP servers over one engine: `tools/list` from the catalogue, `tools/call` through
 * `runTool`. Built on the SDK's low-level `Server`, not `McpServer.registerTool`, because scry
 * validates arguments itself: bad arguments come back as an `invalid_arguments` envelope
 * (isError) the model can read and correct, never as a JSON-RPC error. A server serves one
 * connection; stdio makes one, the stateless HTTP transport one per request, so what every
 * server shares (the tool list, the instructions until the next index pass) is computed once here.
 */
export function scryServerFactory(options: ScryServerOptions): () => Server {
  const { engine, watch } = options;
  const writePolicy = options.writePolicy ?? 'stage';
  const tools = toolsFor(writePolicy);
  let listed: Tool[] | undefined;
  let instructions: { key: string; text: string } | undefined;
  const describe = (): string => {
    // what the index holds changes when a pass ends
    const f = engine.freshness();
    const key = `${f.lastPass?.at ?? ''}:${f.state === 'indexing'}`;
    if (instructions?.key !== key) {
      instructions = { key, text: serverInstructions({ root: engine.root, status: statusOrUndefined(engine), indexing: f.state === 'indexing', tools, writePolicy }) };
    }
    return instructions.text;
  };

  return () => {
    const server = new Server({ name: 'scry', title: 'scry code retrieval', version: options.version }, { capabilities: { tools: {} }, instructions: describe() });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: (listed ??= listedTools(tools)) }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      const progress = progressSink(extra._meta?.progressToken, (n) => extra.sendNotification(n));
      const ctx: ToolContext = {
        engine,
        writePolicy,
        signal: extra.signal,
        onProgress: progress?.tool,
        ready: watch ? () => watch.ready({ signal: extra.signal, onProgress: progress?.index }) : undefined,
        warnings: () => freshnessWarnings(engine.freshness()),
      };
      // applied writes re-index their own files (engine); other edits arrive through the watch
      return toCallToolResult(await runTool(name, args, ctx), args);
    });
    return server;
  };
}

/** One MCP server over an engine (see `scryServerFactory`). */
export function createScryServer(options: ScryServerOptions): Server {
  return scryServerFactory(options)();
}

/** The envelope itself as `structuredContent`, a short summary as text, `isError` on failure. */
export function toCallToolResult(envelope: Envelope, args: Record<string, unknown> = {}): CallToolResult {
  return {
    content: [{ type: 'text', text: summarise(envelope, args) }],
    structuredContent: envelope as unknown as Record<string, unknown>,
    isError: !envelope.ok,
  };
}

function statusOrUndefined(engine: Engine): StatusReport | undefined {
  try {
    return engine.status();
  } catch {
    return undefined; // an unreadable index: the first pass or a tool call reports why
  }
}
