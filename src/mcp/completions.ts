/**
 * `completion/complete` for the arguments of scry's prompts and of the `scry://file/{path}`
 * template: file paths of the index that start with what was typed, and the fixed choices of
 * `system_prompt`'s `tool_calls`. Anything else completes to nothing (never an error).
 */
import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import type { Engine } from '../index.js';
import { FILE_TEMPLATE } from './resources.js';

/** Values in one completion result (the MCP limit). */
const MAX_VALUES = 100;
/** Arguments that name a file of the project. */
const PATH_ARGUMENTS = new Set(['path', 'current_file']);

async function pathsStartingWith(engine: Engine, prefix: string): Promise<CompleteResult> {
  const listing = await engine.listFiles({ limit: 10_000, includeHidden: prefix.startsWith('.') || prefix.includes('/.') });
  const all = listing.files.map((f) => f.path).filter((p) => p.startsWith(prefix));
  return { completion: { values: all.slice(0, MAX_VALUES), total: all.length, hasMore: all.length > MAX_VALUES } };
}

export async function completeArgument(engine: Engine, params: CompleteRequest['params']): Promise<CompleteResult> {
  const { ref, argument } = params;
  const none: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };
  if (ref.type === 'ref/resource') return ref.uri === FILE_TEMPLATE.uriTemplate && argument.name === 'path' ? pathsStartingWith(engine, argument.value) : none;
  if (ref.type !== 'ref/prompt') return none;
  if (ref.name === 'system_prompt' && argument.name === 'tool_calls') {
    const values = ['native', 'json'].filter((v) => v.startsWith(argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  }
  return PATH_ARGUMENTS.has(argument.name) ? pathsStartingWith(engine, argument.value) : none;
}
