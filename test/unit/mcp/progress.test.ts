import { describe, expect, it } from 'vitest';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { IndexPhase } from '../../../src/index.js';
import { PROGRESS_MIN_INTERVAL_MS, indexProgressValue, progressSink } from '../../../src/mcp/progress.js';

const event = (phase: IndexPhase, filesDone: number, filesTotal: number) => ({ phase, filesDone, filesTotal, bytesDone: 0, bytesTotal: 0 });

function recorder() {
  let now = 0;
  const sent: Array<{ progress: number; total?: number; message?: string; progressToken: string | number }> = [];
  const sink = progressSink('tok', async (n: ServerNotification) => void sent.push(n.params as never), { now: () => now });
  return { sink: sink!, sent, advance: (ms: number) => void (now += ms) };
}

describe('progress notifications', () => {
  it('maps an index pass onto one increasing scale', () => {
    const values = [event('scan', 0, 0), event('index', 0, 4), event('index', 4, 4), event('finalize', 4, 4), event('done', 4, 4)].map(indexProgressValue);
    expect(values.map((v) => v.progress)).toEqual([0, 0, 4, 4.5, 5]);
    expect(values.at(-1)).toMatchObject({ total: 5, message: 'indexing: done' });
  });

  it('sends nothing without a progress token', () => {
    expect(progressSink(undefined, async () => {})).toBeUndefined();
  });

  it('only ever increases, rate-limits within a phase, and always sends phase changes and the end', () => {
    const { sink, sent, advance } = recorder();
    sink.index(event('scan', 0, 0));
    sink.index(event('index', 0, 100)); // same value as the scan: not sent
    for (let i = 1; i <= 100; i++) {
      advance(10);
      sink.index(event('index', i, 100));
    }
    sink.index(event('finalize', 100, 100));
    sink.index(event('done', 100, 100));
    const values = sent.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    expect(values[0]).toBe(0);
    expect(values.slice(-2)).toEqual([100.5, 101]);
    // 1 s of per-file events at 10 ms apart: about one send per PROGRESS_MIN_INTERVAL_MS
    expect(sent.filter((p) => p.message?.startsWith('indexing: ') && p.message.includes('/')).length).toBeLessThanOrEqual(1000 / PROGRESS_MIN_INTERVAL_MS + 2);
    expect(sent.every((p) => p.progressToken === 'tok')).toBe(true);
  });

  it("continues a tool's own steps after the index scale", () => {
    const { sink, sent, advance } = recorder();
    sink.index(event('done', 3, 3));
    advance(1000);
    sink.tool({ done: 0, total: 2, message: 'scanning' });
    advance(1000);
    sink.tool({ done: 2, total: 2, message: 'scanned' });
    expect(sent.map((p) => [p.progress, p.total])).toEqual([[4, 4], [5, 7], [7, 7]]);
  });
});
