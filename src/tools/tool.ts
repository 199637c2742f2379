import * as z from 'zod';
import type { CollectionMember, Engine } from '../index.js';
import type { BoundSpec } from './bound.js';
import type { TextDoc } from './render/text-doc.js';

/**
 * Who may write, decided by the host, never by a tool (../shared/seeds §17.3):
 * - `stage` (default): write tools validate the change and return it with its hash and the error
 *   `requires_confirmation`; a call carrying a token minted by the host applies it.
 * - `autonomous`: the runner mints a token for each write call itself (agent mode; off by default).
 * - `read-only`: write tools are not offered at all.
 */
export type WritePolicy = 'stage' | 'autonomous' | 'read-only';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  readonly engine: Engine;
  /** Named collections served beside the project (`scry mcp --collection NAME`), searchable with `collections: [...]`. */
  readonly collections?: readonly CollectionMember[] | undefined;
  readonly writePolicy: WritePolicy;
  /** Cancels long work (a model rerank, a text scan) when the caller gives up. */
  readonly signal?: AbortSignal | undefined;
  /** Long operations (a first index) report progress here, e.g. as MCP progress notifications. */
  readonly onProgress?: ((progress: { done: number; total?: number | undefined; message: string }) => void) | undefined;
  /**
   * Waits until the index can answer (the server's first pass). Hosts that index in the
   * background set this; without it a tool reads whatever index exists.
   */
  readonly ready?: (() => Promise<void>) | undefined;
  /**
   * The caller's `max_tokens`, for a tool that sizes its output to it (repo_map); the runner
   * bounds the envelope to it either way.
   */
  readonly maxTokens?: number | undefined;
  /** Warnings every result should carry (`index is being refreshed`, `lexical only`). */
  readonly warnings?: (() => readonly string[]) | undefined;
}

/** A handler's result: data plus warnings for `meta.warnings`. Failures are thrown as EngineError. */
export interface ToolOutput<T> {
  readonly data: T;
  readonly warnings?: readonly string[];
  /** Where the data came from, for `meta.source` (get_diagnostics: `lsp:python`, `typescript-api 5.9.3 (tsconfig.json)`, `none: <reason>`). */
  readonly source?: string | undefined;
}

export type ToolShape = z.ZodRawShape;

/** One agent tool, declared once: MCP, the CLI and the local-model runner all read this. */
export interface ToolDefinition<S extends ToolShape = ToolShape, T = unknown> {
  /** snake_case, stable: agents and prompts name it. */
  readonly name: string;
  /** Human title for clients that show one. */
  readonly title: string;
  /** Teaches usage: when to use it, when not, and one short example call. */
  readonly description: string;
  /** Arguments; every field carries `.describe()`. `max_tokens` is added to every tool. */
  readonly input: S;
  /** Read-only tools never change files (MCP `readOnlyHint`). */
  readonly readOnly: boolean;
  /** How the result may be cut to fit the byte cap or `max_tokens`. */
  readonly bound?: BoundSpec<T>;
  /** The shape of `data` on success (output-schema.ts): MCP `outputSchema` wraps it in the envelope's. */
  readonly output: z.ZodType;
  /** Fields this tool adds to `meta` (get_diagnostics: `source`), declared in its output schema only. */
  readonly meta?: z.ZodRawShape | undefined;
  /**
   * The result as text for a model (render/): MCP clients that show only text content still get
   * all of it. Called with the data the handler returned, after bounding; `output` is checked
   * against the same data in tests.
   */
  readonly render: (data: never, args: Readonly<Record<string, unknown>>) => TextDoc;
  readonly handler: (args: z.infer<z.ZodObject<S>>, ctx: ToolContext) => Promise<ToolOutput<T>>;
}

/**
 * Declares a tool: infers the handler's argument types from the schema, then erases them so
 * tools of different shapes share one list (arguments are validated against `input` before any
 * handler runs, so the erasure is safe).
 */
export function defineTool<S extends ToolShape, T>(def: ToolDefinition<S, T>): ToolDefinition {
  return def as unknown as ToolDefinition;
}

/** Added to every tool: the caller's output budget. */
export const MAX_TOKENS_ARG = z
  .number()
  .int()
  .min(64)
  .max(100_000)
  .optional()
  .describe('Optional token budget; the result is cut to fit (whole items) and meta.omitted lists the rest.');

/**
 * The result count of a list tool, named `limit` in every tool (the name of ../shared/seeds
 * §17.4.1); `max_results`, scry's earlier name on the search tools, is accepted as an alias by
 * runTool (ARGUMENT_ALIASES).
 */
export function limitArg(max: number, fallback: number, noun: string): z.ZodDefault<z.ZodNumber> {
  return z.number().int().min(1).max(max).default(fallback).describe(`${noun} to return (1-${max}).`);
}
