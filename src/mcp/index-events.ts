import type { WatchEvent } from '../index.js';

/**
 * Fans the watch's events (`engine.watch({ onEvent })`) out to every MCP session of the process:
 * sessions with resource subscriptions listen for `pass-end` and check their files. A listener
 * that throws is dropped from nothing and stops nothing: events are fire-and-forget.
 */
export class IndexEvents {
  private readonly listeners = new Set<(event: WatchEvent) => void>();

  /** Adds a listener; returns its removal. */
  on(listener: (event: WatchEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** For `engine.watch({ onEvent: events.emit })`. */
  readonly emit = (event: WatchEvent): void => {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // one session's failure is not the others'
      }
    }
  };

  get listenerCount(): number {
    return this.listeners.size;
  }
}
