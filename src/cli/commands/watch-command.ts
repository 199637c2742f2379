import { EngineError, type IndexReport, type WatchEvent, type WatchOptions } from '../../index.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';

export interface WatchFlags {
  db?: string;
  json?: boolean;
  debounce?: string;
  backend?: string;
}

const BACKENDS = ['auto', 'directories', 'recursive', 'poll'] as const;

function watchOverrides(flags: WatchFlags): WatchOptions['watch'] {
  const out: { debounceMs?: number; backend?: (typeof BACKENDS)[number] } = {};
  if (flags.debounce !== undefined) {
    const n = Number(flags.debounce);
    if (flags.debounce.trim() === '' || !Number.isInteger(n) || n < 0 || n > 60_000) throw new EngineError('INVALID_ARGUMENT', { name: 'debounce', reason: `"${flags.debounce}" is not an integer from 0 to 60000 (milliseconds)` });
    out.debounceMs = n;
  }
  if (flags.backend !== undefined) {
    if (!(BACKENDS as readonly string[]).includes(flags.backend)) throw new EngineError('INVALID_ARGUMENT', { name: 'backend', reason: `"${flags.backend}" is not one of ${BACKENDS.join(', ')}` });
    out.backend = flags.backend as (typeof BACKENDS)[number];
  }
  return out;
}

const time = (): string => new Date().toTimeString().slice(0, 8);

function passLine(reason: string, r: IndexReport): string {
  const parts = [`${r.filesIndexed} indexed${r.filesReused > 0 ? ` (${r.filesReused} reused)` : ''}`];
  if (r.filesRemoved > 0) parts.push(`${r.filesRemoved} removed`);
  if (r.filesTouched > 0) parts.push(`${r.filesTouched} unchanged (touched)`);
  return `${time()} ${reason}: ${parts.join(', ')} in ${Math.round(r.durationMs)} ms`;
}

/** One human line per event worth seeing; progress is left to `scry status`. */
function describe(event: WatchEvent, root: string): string | undefined {
  switch (event.type) {
    case 'role':
      return event.role === 'writer'
        ? `${time()} writing the index of ${root}`
        : `${time()} pid ${event.writerPid ?? '?'} is writing this index; following it, and taking over if it exits`;
    case 'watching':
      return `${time()} watching ${root} (${event.watcher.backend}${event.watcher.backend === 'poll' ? '' : `, ${event.watcher.watches} directories`})${event.watcher.fallbackReason ? `: ${event.watcher.fallbackReason}` : ''}`;
    case 'pass-end':
      return event.reason === 'startup' || event.report.filesIndexed + event.report.filesRemoved > 0 || event.reason === 'request' ? passLine(event.reason, event.report) : undefined;
    case 'pass-error':
      return `${time()} ${event.reason} pass failed${event.code ? ` [${event.code}]` : ''}: ${event.message}`;
    case 'warning':
      return `${time()} warning: ${event.message}${event.data ? ` ${JSON.stringify(event.data)}` : ''}`;
    default:
      return undefined;
  }
}

/** Resolves on SIGINT or SIGTERM; holds the event loop open until then. */
function untilSignal(): { promise: Promise<void>; dispose: () => void } {
  let done: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    done = resolve;
  });
  const keepAlive = setInterval(() => {}, 1 << 30);
  process.once('SIGINT', done);
  process.once('SIGTERM', done);
  return { promise, dispose: () => (clearInterval(keepAlive), process.off('SIGINT', done), process.off('SIGTERM', done)) };
}

/**
 * `scry watch [DIR]`: keeps the index of DIR fresh until interrupted. One line per role change and
 * per pass that changed something; `--json` prints every event as one JSON line instead.
 */
export async function watchCommand(io: CliIO, dir: string | undefined, flags: WatchFlags): Promise<number> {
  const watchConfig = watchOverrides(flags);
  const engine = await openEngine(io, { dir, db: flags.db, orCwd: true });
  const signal = untilSignal();
  try {
    const onEvent = (event: WatchEvent): void => {
      if (flags.json) {
        if (event.type !== 'progress') io.out(`${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`);
        return;
      }
      const line = describe(event, engine.root);
      if (line) (event.type === 'warning' || event.type === 'pass-error' ? io.err : io.out)(`${line}\n`);
    };
    const watch = await engine.watch({ watch: watchConfig, onEvent });
    if (!flags.json) io.out(`${time()} press Ctrl-C to stop\n`);
    await signal.promise;
    await watch.close();
    return 0;
  } finally {
    signal.dispose();
    engine.close();
  }
}
