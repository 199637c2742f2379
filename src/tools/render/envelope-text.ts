import type { Envelope, ToolErrorData } from '../envelope.js';
import { fenceFor, type TextDoc } from './text-doc.js';
import { keyValueLines } from './status-text.js';

/** Renders a tool's successful data as text (one renderer per result type, in render/). */
export type DataRenderer = (data: never, args: Readonly<Record<string, unknown>>) => TextDoc;

/** Labels of omitted items named in the text; the count covers the rest. */
const MAX_OMITTED_LABELS = 10;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The whole envelope as a text document: the data through the tool's renderer (or as `key: value`
 * lines for a tool without one), or the failure's code, message, hint and details; then what the
 * bounding left out (`meta.omitted`) and the warnings.
 */
export function envelopeDoc(envelope: Envelope, render: DataRenderer | undefined, args: Readonly<Record<string, unknown>> = {}): TextDoc {
  const doc = envelope.ok ? successDoc(envelope.data, render, args) : failureDoc(envelope);
  const tail = [...(doc.tail ?? []), ...metaLines(envelope)];
  return { ...doc, tail };
}

function successDoc(data: unknown, render: DataRenderer | undefined, args: Readonly<Record<string, unknown>>): TextDoc {
  if (render && isObj(data)) return render(data as never, args);
  return { head: isObj(data) ? keyValueLines(data) : [data === null || data === undefined ? 'ok' : JSON.stringify(data)], items: [], noun: 'items' };
}

function metaLines(envelope: Envelope): string[] {
  const lines: string[] = [];
  for (const o of envelope.meta.omitted ?? []) {
    const labels = o.items && o.items.length > 0 ? `: ${o.items.slice(0, MAX_OMITTED_LABELS).join(', ')}${o.count > Math.min(o.items.length, MAX_OMITTED_LABELS) ? ', …' : ''}` : '';
    lines.push(`omitted to fit: ${o.count} ${o.field}${labels}`);
  }
  for (const w of envelope.meta.warnings) lines.push(`warning: ${w}`);
  return lines;
}

/**
 * A failure: `error <code>: <message>` first (agents branch on the code), the engine's reason,
 * the argument issues, "did you mean", a staged change's files and diff (to show the user), and
 * the hint last.
 */
function failureDoc(envelope: Envelope): TextDoc {
  const data = (isObj(envelope.data) ? envelope.data : {}) as Partial<ToolErrorData> & Obj;
  const head = [`error ${envelope.error ?? 'internal_error'}: ${String(data.message ?? 'failed')}`];
  if (typeof data.reason === 'string') head.push(`reason: ${data.reason}`);
  if (Array.isArray(data.issues)) head.push(...data.issues.map((i) => `- ${String(i)}`));
  if (Array.isArray(data.suggestions) && data.suggestions.length > 0) head.push(`did you mean: ${data.suggestions.map(String).join(', ')}`);
  const { message: _m, reason: _r, issues: _i, suggestions: _s, hint, diff, files, ...rest } = data;
  if (Array.isArray(files)) {
    for (const f of files) head.push(isObj(f) ? `${String(f.status ?? 'changed')} ${String(f.path)} (+${String(f.additions ?? 0)} -${String(f.deletions ?? 0)})` : String(f));
  }
  head.push(...keyValueLines(rest));
  const tail = typeof hint === 'string' ? [`hint: ${hint}`] : [];
  if (typeof diff !== 'string') return { head, items: [], noun: 'lines', tail };
  // the proposed change, whole lines of it in a diff fence
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  const fence = fenceFor(diff);
  return { head, items: lines, noun: 'diff lines', separator: '\n', wrap: { open: `${fence}diff`, close: fence }, tail };
}
