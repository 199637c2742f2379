/**
 * The flags of `scry context` that carry structure (`--current path:line`, `--selection a-b`,
 * `--task`), parsed without touching disk: a bad value is INVALID_ARGUMENT naming the flag.
 */
import { CONTEXT_TASKS, EngineError, type ContextTask } from '../index.js';

/** `--current src/a.ts:42` → path and cursor line (the line is optional). */
export function parseCurrent(raw: string | undefined): { path: string; line?: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^(.*?):(\d+)$/.exec(raw);
  if (!m) return { path: raw };
  const line = Number(m[2]);
  if (!Number.isSafeInteger(line) || line < 1) throw new EngineError('INVALID_ARGUMENT', { name: 'current', reason: `"${raw}": the line after ':' must be a positive integer` });
  return { path: m[1]!, line };
}

/** `--selection 40-60` (or `40`) → lines 40 to 60. */
export function parseSelection(raw: string | undefined): { startLine: number; endLine: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(raw);
  const start = m ? Number(m[1]) : NaN;
  const end = m?.[2] !== undefined ? Number(m[2]) : start;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 1 || end < start) {
    throw new EngineError('INVALID_ARGUMENT', { name: 'selection', reason: `"${raw}" is not START-END with 1 <= START <= END` });
  }
  return { startLine: start, endLine: end };
}

/** `--task fix` → the task; undefined when not given. */
export function parseTask(raw: string | undefined): ContextTask | undefined {
  if (raw === undefined) return undefined;
  if (!(CONTEXT_TASKS as readonly string[]).includes(raw)) throw new EngineError('INVALID_ARGUMENT', { name: 'task', reason: `"${raw}" is not one of ${CONTEXT_TASKS.join(', ')}` });
  return raw as ContextTask;
}

/** Which of the inputs read stdin (`-`): at most one may. */
export function stdinInput(inputs: Readonly<Record<string, string | undefined>>): string | undefined {
  const dashes = Object.entries(inputs).filter(([, v]) => v === '-').map(([k]) => k);
  if (dashes.length > 1) throw new EngineError('INVALID_ARGUMENT', { name: dashes[1]!, reason: `only one input can read stdin (${dashes.join(' and ')} both say -)` });
  return dashes[0];
}
