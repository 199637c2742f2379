import type { StatusReport } from '../index.js';
import { TOOL_ERROR_CODES } from '../tools/envelope.js';
import type { ToolDefinition, WritePolicy } from '../tools/tool.js';

/** Languages named in the instructions; the rest are counted. */
const MAX_LANGUAGES = 6;

export interface InstructionsInput {
  readonly root: string;
  /** The index as the server starts; undefined when it cannot be read yet. */
  readonly status: StatusReport | undefined;
  /** True while the first (or a background) index pass runs. */
  readonly indexing: boolean;
  readonly tools: readonly ToolDefinition[];
  readonly writePolicy: WritePolicy;
}

/**
 * The server's `instructions`, sent once at initialize: what the index holds and how to use the
 * tools, in a few lines (clients put them in the model's context in every session).
 */
export function serverInstructions(input: InstructionsInput): string {
  const { status } = input;
  const lines = [holdings(input)];
  if (status?.capabilities.semantic) {
    lines.push('Search is hybrid: BM25 over code-aware tokens plus embeddings, so both identifiers and plain-language descriptions work.');
  } else {
    lines.push('Search is lexical only (BM25 over code-aware tokens, no embeddings): query with identifiers, error messages, file names and distinctive words rather than paraphrases.');
  }
  lines.push('Search first, then read exact code with the file and symbol tools instead of guessing; paths are relative to the root. Pass max_tokens to bound any result (meta.omitted lists what was cut).');
  lines.push(`Every result is an envelope {ok, data, error, meta}: on failure error is one of ${TOOL_ERROR_CODES.join(', ')} and data.hint says what to do; meta.warnings flags a refreshing index.`);
  const writes = input.tools.filter((t) => !t.readOnly).map((t) => t.name);
  if (writes.length > 0) {
    lines.push(
      input.writePolicy === 'autonomous'
        ? `Write tools (${writes.join(', ')}) apply changes to files directly.`
        : `Write tools (${writes.join(', ')}) only stage a change: they return requires_confirmation with the diff and its hash, and the user applies it.`,
    );
  }
  return lines.join('\n');
}

function holdings(input: InstructionsInput): string {
  const { status, root } = input;
  const pending = input.indexing ? ' An index pass is running; results may lag behind recent edits until it ends.' : '';
  if (!status?.indexed) {
    const state = input.indexing ? 'The first index is being built: the first calls wait for it.' : 'No index is built yet; tools answer not_found until a pass completes (the server retries on later calls).';
    return `scry indexes the repository at ${root} for code and documentation retrieval. ${state}`;
  }
  const langs = Object.entries(status.languages).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const named = langs.slice(0, MAX_LANGUAGES).map(([lang, n]) => `${lang} ${n}`);
  const others = langs.length > MAX_LANGUAGES ? `, ${langs.length - MAX_LANGUAGES} more` : '';
  const languages = named.length > 0 ? ` (${named.join(', ')}${others})` : '';
  return `scry indexes the repository at ${root}: ${status.files} files${languages}, ${status.structure.symbols} definitions, for code and documentation retrieval.${pending}`;
}
