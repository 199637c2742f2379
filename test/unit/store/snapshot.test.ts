/**
 * IndexStore.snapshot (issue 16, defect 4): one read transaction across awaits, on a connection
 * of its own, while another connection commits; nested calls join it; other calls take turns.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { IndexStore } from '../../../src/store/index-store.js';
import { tempDir } from '../../helpers/temp.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('IndexStore.snapshot', () => {
  let t: ReturnType<typeof tempDir>;
  let writer: IndexStore;
  let reader: IndexStore;
  const set = (v: string): void => writer.transaction(() => writer.meta.set('gen', v));
  beforeEach(() => {
    t = tempDir();
    const path = join(t.dir, 'index.db');
    writer = IndexStore.open(path, { create: true });
    reader = IndexStore.open(path, { create: false });
    set('1');
  });
  afterEach(() => {
    reader.close();
    writer.close();
    t.cleanup();
  });

  it('reads one version across awaits while another connection commits; the next snapshot sees the commit', async () => {
    const seen = await reader.snapshot(async () => {
      const first = reader.meta.get('gen');
      set('2');
      await tick();
      const dv = reader.search.dataVersion();
      set('3');
      await tick();
      return [first, reader.meta.get('gen'), dv === reader.search.dataVersion()];
    });
    expect(seen).toEqual(['1', '1', true]);
    expect(await reader.snapshot(() => reader.meta.get('gen'))).toBe('3');
    // outside a snapshot each statement reads the newest version
    set('4');
    expect(reader.meta.get('gen')).toBe('4');
  });

  it('a call inside a snapshot joins it; a concurrent outside call waits for it to end', async () => {
    const order: string[] = [];
    const outer = reader.snapshot(async () => {
      order.push('outer start');
      const inner = await reader.snapshot(async () => {
        await tick();
        return reader.meta.get('gen');
      });
      set('2');
      await tick();
      order.push(`outer end ${inner} ${reader.meta.get('gen')}`);
    });
    const other = reader.snapshot(() => {
      order.push(`other ${reader.meta.get('gen')}`);
    });
    expect(reader.busy).toBe(true);
    await Promise.all([outer, other]);
    expect(order).toEqual(['outer start', 'outer end 1 1', 'other 2']);
    expect(reader.busy).toBe(false);
  });

  it('a failing call rolls its transaction back, keeps its error, and leaves the connection usable', async () => {
    const boom = new EngineError('INVALID_ARGUMENT', { name: 'x', reason: 'test' });
    await expect(
      reader.snapshot(async () => {
        reader.meta.get('gen');
        await tick();
        throw boom;
      }),
    ).rejects.toBe(boom);
    // an abort is no SQLite error (its numeric DOMException code is not one) and passes through as is
    const abort = AbortSignal.abort().reason as DOMException;
    await expect(reader.snapshot(() => Promise.reject(abort))).rejects.toBe(abort);
    expect(() =>
      reader.snapshotSync(() => {
        throw boom;
      }),
    ).toThrow(boom);
    set('2');
    expect(await reader.snapshot(() => reader.meta.get('gen'))).toBe('2');
    expect(reader.snapshotSync(() => reader.meta.get('gen'))).toBe('2');
  });

  it('snapshotSync inside an open snapshot reads that snapshot', async () => {
    const inside = await reader.snapshot(async () => {
      reader.meta.get('gen');
      set('2');
      await tick();
      return reader.snapshotSync(() => reader.meta.get('gen'));
    });
    expect(inside).toBe('1');
  });
});
