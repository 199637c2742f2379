import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type JSONRPCRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { CollectionMember, Engine, IndexWatch, StatusReport } from '../index.js';
import { toolsFor } from '../tools/catalog.js';
import { runTool } from '../tools/run-tool.js';
import type { ToolContext, ToolDefinition, WritePolicy } from '../tools/tool.js';
import { serverInstructions } from './instructions.js';
import { toCallToolResult } from './call-result.js';
import { progressSink } from './progress.js';
import { freshnessWarnings } from './freshness-warnings.js';
import { listedTools } from './tool-list.js';
import { getPrompt, listPrompts } from './prompts.js';
import { FILE_TEMPLATE, listResources, readResource, Subscriptions } from './resources.js';
import { completeArgument } from './completions.js';
import type { IndexEvents } from './index-events.js';

export interface ScryServerOptions {
  readonly engine: Engine;
  /** Named collections served beside the project (`scry mcp --collection NAME`): search tools take `collections: [...]`. */
  readonly collections?: readonly CollectionMember[] | undefined;
  /** Who may write (tools/tool.ts). `read-only` hides the write tools. Default `stage`. */
  readonly writePolicy?: WritePolicy | undefined;
  /** The engine's watch (`engine.watch()`), shared by every session of this process: tools wait for its first pass when there is no index yet. Without it tools read the index as it is. */
  readonly watch?: IndexWatch | undefined;
  /** Reported as the server version at initialize. */
  readonly version: string;
  /** The watch's events (`engine.watch({ onEvent: events.emit })`): resource subscriptions are notified after each pass. */
  readonly events?: IndexEvents | undefined;
}

/**
 * Makes MCP servers over one engine: `tools/list` from the catalogue (input and output schemas),
 * `tools/call` through `runTool`. Built on the SDK's low-level `Server`, not
 * `McpServer.registerTool`, because scry validates arguments itself: bad arguments, even ones that
 * are not an object, come back as an `invalid_arguments` envelope (isError) the model can read
 * and correct, never as a JSON-RPC error. A server serves one
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
    const server = new Server(
      { name: 'scry', title: 'scry code retrieval', version: options.version },
      { capabilities: { tools: {}, prompts: {}, resources: { subscribe: true }, completions: {}, logging: {} }, instructions: describe() },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: (listed ??= listedTools(tools)) }));
    servePromptsAndResources(server, options, (signal) => ({ engine, writePolicy: 'read-only', signal, ready: watch ? () => watch.ready({ signal }) : undefined }));
    // tools/call is served by the fallback handler, not setRequestHandler: the SDK parses a
    // registered tools/call request against its own schema first, and `arguments` that are not
    // an object ("str", true, []) would fail there as JSON-RPC -32603 before scry sees them.
    // Here every call reaches runTool, which answers bad arguments with an invalid_arguments envelope.
    server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
      if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as { name?: unknown; arguments?: unknown; _meta?: { progressToken?: unknown } };
      const token = params._meta?.progressToken;
      const progress = progressSink(typeof token === 'string' || typeof token === 'number' ? token : undefined, (n) => extra.sendNotification(n));
      const ctx: ToolContext = {
        engine,
        collections: options.collections,
        writePolicy,
        signal: extra.signal,
        onProgress: progress?.tool,
        ready: watch ? () => watch.ready({ signal: extra.signal, onProgress: progress?.index }) : undefined,
        warnings: () => freshnessWarnings(engine.freshness()),
      };
      // applied writes re-index their own files (engine); other edits arrive through the watch
      const envelope = await runTool(params.name, params.arguments, ctx);
      return toCallToolResult(envelope, envelope.ok ? toolNamed(tools, params.name) : undefined, params.arguments);
    };
    return server;
  };
}

/**
 * Prompts (prompts.ts), resources with subscriptions (resources.ts) and argument completion
 * (completions.ts). Prompts read evidence through the read-only tools whatever the write policy.
 */
function servePromptsAndResources(server: Server, options: ScryServerOptions, toolCtx: (signal: AbortSignal) => ToolContext): void {
  const { engine } = options;
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listPrompts() }));
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) => getPrompt(request.params.name, request.params.arguments, toolCtx(extra.signal)));
  // like the tools, these wait for the first pass when there is no index yet
  const ready = (signal: AbortSignal): Promise<void> => options.watch?.ready({ signal }) ?? Promise.resolve();
  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => (await ready(extra.signal), listResources(engine, request.params?.cursor)));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [FILE_TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => (await ready(extra.signal), readResource(engine, request.params.uri)));
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => (await ready(extra.signal), completeArgument(engine, request.params)));
  const subscriptions = new Subscriptions(engine);
  let off: (() => void) | undefined;
  const onPassEnd = async (): Promise<void> => {
    if (server.transport === undefined) return off?.(); // the session ended
    for (const uri of await subscriptions.changed()) await server.sendResourceUpdated({ uri });
  };
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    await subscriptions.subscribe(request.params.uri);
    off ??= options.events?.on((event) => {
      if (event.type === 'pass-end') void onPassEnd().catch(() => undefined);
    });
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });
}

/** One MCP server over an engine (see `scryServerFactory`). */
export function createScryServer(options: ScryServerOptions): Server {
  return scryServerFactory(options)();
}

const toolNamed = (tools: readonly ToolDefinition[], name: unknown): ToolDefinition | undefined => tools.find((t) => t.name === name);

function statusOrUndefined(engine: Engine): StatusReport | undefined {
  try {
    return engine.status();
  } catch {
    return undefined; // an unreadable index: the first pass or a tool call reports why
  }
}
