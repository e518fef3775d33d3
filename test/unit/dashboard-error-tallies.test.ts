import { describe, expect, it } from 'vitest';
import { ERROR_TALLY_MIN_AGE_MS, ErrorTallies, type ErrorTally } from '../../src/dashboard/error-tallies.js';
import { statusOf } from './dashboard-fixtures.js';

/** A scan that the test finishes by hand, counting how often it was asked. */
function manualScans() {
  const pending: { id: string; finish: (rows: number) => void; fail: (error: Error) => void }[] = [];
  const asked: string[] = [];
  let clock = 1_000_000;
  const scan = (id: string) =>
    new Promise<ErrorTally>((resolve, reject) => {
      asked.push(id);
      pending.push({
        id,
        finish: (rows) =>
          resolve({ codes: [{ status: 'failed', code: '131026', rows, example: '' }], scanned: rows, complete: true, at: clock }),
        fail: reject,
      });
    });
  const tallies = new ErrorTallies({ scan, now: () => clock });
  /** Lets the promise chain run until the next scan is asked for. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { tallies, pending, asked, settle, tick: (ms: number) => (clock += ms) };
}

const counts = (failed: number) => statusOf('c', {}, { total: 100, failed }).counts;

describe('ErrorTallies', () => {
  it('never scans a campaign with no failed, unknown, rejected or skipped row', async () => {
    const { tallies, asked } = manualScans();
    expect(tallies.peek('c', counts(0))).toMatchObject({ codes: [], complete: true });
    expect(await tallies.fresh('c', counts(0))).toMatchObject({ codes: [], complete: true });
    expect(asked).toEqual([]);
  });

  it('peek starts one scan in the background and shows nothing until it is done; fresh waits for it', async () => {
    const { tallies, pending, asked, settle } = manualScans();
    expect(tallies.peek('c', counts(2))).toBeUndefined();
    expect(tallies.peek('c', counts(2))).toBeUndefined();
    const waiting = tallies.fresh('c', counts(2));
    await settle();
    expect(asked).toEqual(['c']);
    pending[0]?.finish(2);
    expect((await waiting).codes[0]?.rows).toBe(2);
    expect(tallies.peek('c', counts(2))?.codes[0]?.rows).toBe(2);
    expect(asked).toEqual(['c']);
  });

  it('keeps a tally while the coded counts stay, and counts again once they moved and it is old enough', async () => {
    const { tallies, pending, asked, settle, tick } = manualScans();
    const first = tallies.fresh('c', counts(2));
    await settle();
    pending[0]?.finish(2);
    await first;
    tick(10 * ERROR_TALLY_MIN_AGE_MS);
    expect((await tallies.fresh('c', counts(2))).codes[0]?.rows).toBe(2);
    expect(asked).toHaveLength(1);
    // Moved, but the tally is young: reused.
    tick(-10 * ERROR_TALLY_MIN_AGE_MS + 1);
    expect(tallies.peek('c', counts(3))?.codes[0]?.rows).toBe(2);
    expect(asked).toHaveLength(1);
    // Old enough: counted again.
    tick(ERROR_TALLY_MIN_AGE_MS);
    const again = tallies.fresh('c', counts(3));
    await settle();
    expect(asked).toHaveLength(2);
    pending[1]?.finish(3);
    expect((await again).codes[0]?.rows).toBe(3);
  });

  it('runs one scan at a time, and a failed scan is tried again at the next look', async () => {
    const { tallies, pending, asked, settle } = manualScans();
    tallies.peek('a', counts(1));
    tallies.peek('b', counts(1));
    await settle();
    expect(asked).toEqual(['a']);
    pending[0]?.fail(new Error('Redis away'));
    await settle();
    await settle();
    expect(asked).toEqual(['a', 'b']);
    expect(tallies.peek('a', counts(1))).toBeUndefined();
    pending[1]?.finish(1);
    await settle();
    await settle();
    expect(asked).toEqual(['a', 'b', 'a']);
  });

  it('forgets campaigns no longer listed', async () => {
    const { tallies, pending, settle } = manualScans();
    const first = tallies.fresh('c', counts(1));
    await settle();
    pending[0]?.finish(1);
    await first;
    tallies.retain(['other']);
    expect(tallies.peek('c', counts(1))).toBeUndefined();
  });
});
