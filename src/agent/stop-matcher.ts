/**
 * Stop sequences applied to streamed text on the client side (servers that ignore `stop` exist):
 * text is released as it arrives except for a tail that could still be the start of a stop
 * sequence, and everything from the first stop sequence on is dropped.
 */
export class StopMatcher {
  private kept = '';
  private held = '';
  private done = false;
  private readonly stops: readonly string[];
  private readonly hold: number;

  constructor(stops: readonly string[]) {
    this.stops = stops.filter((s) => s !== '');
    this.hold = Math.max(0, ...this.stops.map((s) => s.length - 1));
  }

  /** True once a stop sequence was seen (later text is ignored). */
  get stopped(): boolean {
    return this.done;
  }

  /** Everything released so far. */
  get text(): string {
    return this.kept;
  }

  /** Adds streamed text; returns the part that is now safe to show. */
  push(text: string): string {
    if (this.done) return '';
    const buffer = this.held + text;
    let cut = -1;
    for (const stop of this.stops) {
      const i = buffer.indexOf(stop);
      if (i !== -1 && (cut === -1 || i < cut)) cut = i;
    }
    if (cut !== -1) {
      this.done = true;
      this.held = '';
      return this.release(buffer.slice(0, cut));
    }
    const safe = Math.max(0, buffer.length - this.hold);
    this.held = buffer.slice(safe);
    return this.release(buffer.slice(0, safe));
  }

  /** Releases the held tail at the end of the stream. */
  flush(): string {
    const rest = this.done ? '' : this.held;
    this.held = '';
    return this.release(rest);
  }

  private release(text: string): string {
    this.kept += text;
    return text;
  }
}
