import type { Envelope, ToolErrorData } from '../tools/envelope.js';

/** Labels of the main list named in a summary; the rest is counted, not listed. */
const MAX_LABELS = 5;
/** A summary is a glance, not the result: the envelope in `structuredContent` carries everything. */
const MAX_SUMMARY_CHARS = 600;
const MAX_QUOTE_CHARS = 60;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * A few lines saying what a tool returned, for the `text` content next to `structuredContent`:
 * `5 results for 'parse config': src/a.ts:10-20 (parseConfig), …`, or the error code, message
 * and hint. Generic over every tool's envelope: it names the first list in `data` (counting
 * `total` when the list was limited) and labels items by `path:start-end (symbol)`.
 */
export function summarise(envelope: Envelope, args: Obj = {}): string {
  const lines = envelope.ok ? successLines(envelope.data, args) : failureLines(envelope);
  const { meta } = envelope;
  if (meta.truncated && meta.omitted && meta.omitted.length > 0) {
    lines.push(`cut to fit: ${meta.omitted.map((o) => `${o.count} ${o.field}`).join(', ')} left out (see meta.omitted)`);
  }
  if (meta.warnings.length > 0) lines.push(`warnings: ${meta.warnings.join('; ')}`);
  return clip(lines.join('\n'), MAX_SUMMARY_CHARS);
}

function failureLines(envelope: Envelope): string[] {
  const data = (isObj(envelope.data) ? envelope.data : {}) as Partial<ToolErrorData>;
  const lines = [`error ${envelope.error ?? 'internal_error'}: ${oneLine(String(data.message ?? 'failed'))}`];
  if (Array.isArray(data.issues) && data.issues.length > 0) lines.push(`issues: ${data.issues.slice(0, 3).join('; ')}`);
  if (Array.isArray(data.suggestions) && data.suggestions.length > 0) lines.push(`did you mean: ${data.suggestions.slice(0, MAX_LABELS).join(', ')}`);
  // what a failure carries besides its message (a staged change's files)
  const { issues: _i, suggestions: _s, ...rest } = data as Obj;
  const extra = mainList(rest);
  if (extra) lines.push(listLine(extra, rest[extra] as unknown[], undefined, undefined));
  if (typeof data.hint === 'string') lines.push(`hint: ${data.hint}`);
  return lines;
}

function successLines(data: unknown, args: Obj): string[] {
  if (Array.isArray(data)) return [listLine('items', data, undefined, undefined)];
  if (!isObj(data)) return [data === null || data === undefined ? 'ok' : `ok: ${clip(oneLine(String(data)), 200)}`];
  // one located thing (a file slice, a definition): its place, not its side lists
  if (typeof data.path === 'string' || typeof data.id === 'string') {
    const text = typeof data.text === 'string' ? ` (${data.text === '' ? 0 : data.text.split('\n').length} lines)` : '';
    return [`${itemLabel(data)!}${text}`];
  }
  const listField = mainList(data);
  if (listField) {
    const subject = [data.query, args.query, args.name, args.symbol_id, args.id, args.glob, args.path].find((v) => typeof v === 'string' && v !== '') as string | undefined;
    const total = typeof data.total === 'number' ? data.total : undefined;
    return [listLine(listField, data[listField] as unknown[], total, subject)];
  }
  const scalars = Object.entries(data).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v));
  const shown = scalars.slice(0, 8).map(([k, v]) => `${k}=${clip(oneLine(String(v)), 60)}`);
  return [shown.length > 0 ? `ok: ${shown.join(', ')}${scalars.length > 8 ? ', …' : ''}` : 'ok'];
}

/** The field holding the result list: the first array of objects or strings in `data`. */
function mainList(data: Obj): string | undefined {
  const arrays = Object.keys(data).filter((k) => Array.isArray(data[k]));
  return arrays.find((k) => (data[k] as unknown[]).some((v) => isObj(v) || typeof v === 'string')) ?? arrays[0];
}

function listLine(field: string, items: readonly unknown[], total: number | undefined, subject: string | undefined): string {
  // a list of groups (files of references): `total` counts the grouped items, not the groups
  const first = items.find(isObj);
  const nested = first ? Object.keys(first).find((k) => Array.isArray(first[k])) : undefined;
  let count = `${items.length} ${counted(field, items.length)}`;
  if (total !== undefined && nested !== undefined) count += `, ${total} ${counted(nested, total)}`;
  else if (total !== undefined && total > items.length) count = `${items.length} of ${total} ${field}`;
  const about = subject !== undefined ? ` for '${clip(oneLine(subject), MAX_QUOTE_CHARS)}'` : '';
  const labels = items.slice(0, MAX_LABELS).map((item) => itemLabel(item) ?? clip(oneLine(JSON.stringify(item) ?? ''), 60));
  const more = items.length > MAX_LABELS ? ', …' : '';
  return labels.length > 0 ? `${count}${about}: ${labels.join(', ')}${more}` : `${count}${about}`;
}

/** `results` for any count but one, `result` for one. */
function counted(noun: string, n: number): string {
  if (n !== 1) return noun;
  if (/(ch|sh|x|ss)es$/.test(noun)) return noun.slice(0, -2);
  return noun.endsWith('s') ? noun.slice(0, -1) : noun;
}

/** `path:start-end (name)`, `path (3 references)`, a name, or undefined when nothing fits. */
function itemLabel(item: unknown): string | undefined {
  if (typeof item === 'string') return clip(oneLine(item), 80);
  if (!isObj(item)) return undefined;
  const name = [item.symbol, item.name, item.id].find((v) => typeof v === 'string' && v !== '') as string | undefined;
  if (typeof item.path !== 'string') return name;
  const start = [item.start_line, item.startLine, item.line].find((v) => typeof v === 'number');
  const endLine = [item.end_line, item.endLine].find((v) => typeof v === 'number');
  const end = endLine !== undefined && endLine !== start ? `-${endLine}` : '';
  const at = start !== undefined ? `${item.path}:${start}${end}` : item.path;
  const nested = Object.keys(item).find((k) => Array.isArray(item[k]));
  const n = nested !== undefined ? (item[nested] as unknown[]).length : 0;
  const detail = name !== undefined && name !== item.path ? name : nested !== undefined ? `${n} ${counted(nested, n)}` : undefined;
  return detail !== undefined ? `${at} (${detail})` : at;
}
