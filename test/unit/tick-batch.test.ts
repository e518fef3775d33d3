import { describe, expect, it, vi } from 'vitest';
import { TickBatch } from '../../src/redis/ledger/tick-batch.js';

/** Records every call the batch makes, and answers each item with `key:item`. */
function recordingBatch(
  options: { maxItems?: number; gatherMs?: number; fail?: (key: string) => Error | undefined; short?: boolean } = {},
) {
  const calls: { key: string; items: number[] }[] = [];
  const batch = new TickBatch<number, string>((key, items) => {
    calls.push({ key, items: [...items] });
    const failure = options.fail?.(key);
    if (failure !== undefined) return Promise.reject(failure);
    const results = items.map((item) => `${key}:${item}`);
    return Promise.resolve(options.short === true ? results.slice(1) : results);
  }, options);
  return { batch, calls };
}

describe('TickBatch', () => {
  it('gathers the calls of one event-loop turn into one call per key, and answers each caller with its own result', async () => {
    const { batch, calls } = recordingBatch();
    const answers = await Promise.all([batch.add('a', 1), batch.add('b', 2), batch.add('a', 3), batch.add('a', 4)]);
    expect(answers).toEqual(['a:1', 'b:2', 'a:3', 'a:4']);
    expect(calls).toEqual([
      { key: 'a', items: [1, 3, 4] },
      { key: 'b', items: [2] },
    ]);
  });

  it('calls added after the flush go in the next call', async () => {
    const { batch, calls } = recordingBatch();
    expect(await batch.add('a', 1)).toBe('a:1');
    expect(await batch.add('a', 2)).toBe('a:2');
    expect(calls.map((c) => c.items)).toEqual([[1], [2]]);
  });

  it('gathers calls made from separate callbacks of the same turn (flushed by setImmediate, not a microtask)', async () => {
    const { batch, calls } = recordingBatch();
    // Immediates queued before the check phase all run in it; the flush the first add
    // schedules is queued during the phase, so it runs in the next turn, after the second add.
    // (Two timers were used here once: under load they can fall into different turns.)
    const [first, second] = await Promise.all([
      new Promise<string>((resolve) => setImmediate(() => resolve(batch.add('a', 1)))),
      new Promise<string>((resolve) => setImmediate(() => resolve(batch.add('a', 2)))),
    ]);
    expect([first, second]).toEqual(['a:1', 'a:2']);
    expect(calls).toEqual([{ key: 'a', items: [1, 2] }]);
  });

  it('splits a turn with more than maxItems calls into several calls, in order', async () => {
    const { batch, calls } = recordingBatch({ maxItems: 2 });
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => batch.add('a', n)));
    expect(answers).toEqual(['a:1', 'a:2', 'a:3', 'a:4', 'a:5']);
    expect(calls.map((c) => c.items)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('a failed call rejects every caller of that call, and only those', async () => {
    const boom = new Error('redis is down');
    const { batch } = recordingBatch({ fail: (key) => (key === 'a' ? boom : undefined) });
    const settled = await Promise.allSettled([batch.add('a', 1), batch.add('a', 2), batch.add('b', 3)]);
    expect(settled).toEqual([
      { status: 'rejected', reason: boom },
      { status: 'rejected', reason: boom },
      { status: 'fulfilled', value: 'b:3' },
    ]);
  });

  it('a call that answers fewer items than it was given rejects them all instead of pairing answers with the wrong callers', async () => {
    const { batch } = recordingBatch({ short: true });
    const settled = await Promise.allSettled([batch.add('a', 1), batch.add('a', 2)]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((settled[0] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/answered 1 of 2/);
  });

  it('an item in no hurry waits its own gather alone, and rides in the call of an urgent item that comes before it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    try {
      const { batch, calls } = recordingBatch({ gatherMs: 5 });
      const alone = batch.add('a', 1, 60);
      await vi.advanceTimersByTimeAsync(59);
      expect(calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(await alone).toBe('a:1');

      // The urgent item's 5 ms decides the call, not the lazy item's minute.
      const lazy = batch.add('a', 2, 60_000);
      const urgent = batch.add('a', 3);
      await vi.advanceTimersByTimeAsync(4);
      expect(calls.map((c) => c.items)).toEqual([[1]]);
      await vi.advanceTimersByTimeAsync(1);
      expect([await lazy, await urgent]).toEqual(['a:2', 'a:3']);
      expect(calls.map((c) => c.items)).toEqual([[1], [2, 3]]);
    } finally {
      vi.useRealTimers();
    }
  });
});
