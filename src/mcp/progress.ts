import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Clock, IndexProgress } from '../index.js';

/** Progress notifications are rate-limited: an index pass reports every batch. Phase changes always go out. */
export const PROGRESS_MIN_INTERVAL_MS = 200;

export interface ProgressValue {
  readonly progress: number;
  readonly total?: number | undefined;
  readonly message: string;
}

/**
 * An index pass as one increasing progress scale: 0 while scanning, one step per file examined,
 * then half a step for finalising and the last step when done (`total` = files + 1), so the value
 * never repeats or goes back, as MCP requires.
 */
export function indexProgressValue(e: IndexProgress): ProgressValue {
  const total = e.filesTotal + 1;
  switch (e.phase) {
    case 'scan':
      return { progress: 0, message: 'indexing: scanning files' };
    case 'index':
      return { progress: e.filesDone, total, message: `indexing: ${e.filesDone}/${e.filesTotal} files` };
    case 'finalize':
      return { progress: e.filesTotal + 0.5, total, message: 'indexing: finalizing' };
    case 'done':
      return { progress: total, total, message: 'indexing: done' };
  }
}

/** Where one request's progress goes: the first index pass it waits for, then the tool's own steps. */
export interface ProgressSink {
  index(event: IndexProgress): void;
  tool(step: { done: number; total?: number | undefined; message: string }): void;
}

/**
 * MCP `notifications/progress` for one request, or undefined when the caller sent no
 * `progressToken`. Values only ever increase (tool steps continue after the index scale), and
 * sends are spaced by PROGRESS_MIN_INTERVAL_MS except at a phase change. A failed send (the client
 * went away) is dropped: progress is advisory.
 */
export function progressSink(
  token: string | number | undefined,
  send: (notification: ServerNotification) => Promise<void>,
  clock: Clock = { now: () => Date.now() },
): ProgressSink | undefined {
  if (token === undefined) return undefined;
  let last = -1;
  let lastAt = -Infinity;
  let lastKey = '';
  let toolBase: number | undefined;
  const emit = (value: ProgressValue, key: string): void => {
    const now = clock.now();
    if (value.progress <= last) return;
    const atEnd = value.total !== undefined && value.progress >= value.total;
    if (key === lastKey && !atEnd && now - lastAt < PROGRESS_MIN_INTERVAL_MS) return;
    last = value.progress;
    lastAt = now;
    lastKey = key;
    const params = { progressToken: token, progress: value.progress, message: value.message, ...(value.total !== undefined ? { total: value.total } : {}) };
    send({ method: 'notifications/progress', params }).catch(() => undefined);
  };
  return {
    index: (event) => emit(indexProgressValue(event), `index:${event.phase}`),
    tool: (step) => {
      toolBase ??= last + 1;
      const total = step.total !== undefined ? toolBase + step.total : undefined;
      emit({ progress: toolBase + step.done, total, message: step.message }, 'tool');
    },
  };
}
