import { count, type TextDoc } from './text-doc.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A scalar or a short list as it reads on a `key: value` line. */
function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((v) => (isObj(v) ? JSON.stringify(v) : String(v))).join(', ');
  return String(value);
}

/**
 * An object as `key: value` lines, nested objects as dotted keys (`freshness.state: fresh`),
 * except a map of counts (`languages: typescript 2, markdown 3`), which stays on one line.
 */
export function keyValueLines(data: Obj, prefix = ''): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const name = `${prefix}${key}`;
    if (!isObj(value)) {
      lines.push(`${name}: ${scalar(value)}`);
      continue;
    }
    const entries = Object.entries(value);
    if (entries.length > 0 && entries.every(([, v]) => typeof v === 'number')) {
      lines.push(`${name}: ${entries.map(([k, v]) => `${k} ${String(v)}`).join(', ')}`);
    } else lines.push(...keyValueLines(value, `${name}.`));
  }
  return lines;
}

/** index_status: what the index holds, its freshness and capabilities, one `key: value` line each. */
export function renderStatus(data: Obj): TextDoc {
  return { head: ['index status', ...keyValueLines(data)], items: [], noun: 'lines' };
}

interface AppliedChange {
  readonly hash: string;
  readonly reindexed: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly status: string; readonly additions: number; readonly deletions: number }>;
}

/** An applied change: its hash, then each file with what happened to it. */
export function renderApplied(data: AppliedChange): TextDoc {
  return {
    head: [`applied change ${data.hash} to ${count(data.files.length, 'file')}; ${count(data.reindexed, 'file')} re-indexed`],
    items: data.files.map((f) => `${f.status} ${f.path} (+${f.additions} -${f.deletions})`),
    noun: 'files',
    separator: '\n',
  };
}
