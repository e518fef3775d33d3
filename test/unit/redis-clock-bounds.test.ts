import { describe, expect, it } from 'vitest';
import { RedisClockBounds } from '../../src/redis/pacer/redis-clock-bounds.js';

/**
 * Where a stamp on Redis's clock falls on the worker's, when calls wait before Redis reads its
 * clock or after. Redis's clock runs OFFSET ms ahead of the worker's in every case; a call
 * names when it left, when Redis read its clock (worker's time) and when its answer came.
 */
const OFFSET = 990;

function call(bounds: RedisClockBounds, left: number, read: number, answered: number): void {
  bounds.observe(read + OFFSET, left, answered);
}

/** A stamp `wait` ms after the last reading, as the worker places it. */
function place(bounds: RedisClockBounds, read: number, wait: number): { earliest: number; latest: number; truth: number } {
  return { ...bounds.span(read + OFFSET + wait), truth: read + wait };
}

describe('RedisClockBounds', () => {
  it('pins the offset within the fastest call: a stamp is placed within its round trip', () => {
    const bounds = new RedisClockBounds();
    call(bounds, 10, 10.1, 10.2);
    const { earliest, latest, truth } = place(bounds, 10.1, 12);
    expect(earliest).toBeLessThanOrEqual(truth);
    expect(latest).toBeGreaterThanOrEqual(truth);
    expect(latest - earliest).toBeCloseTo(0.2, 6);
  });

  it('a call that waited before Redis read its clock: the stamp is not placed early (the send would leave early)', () => {
    const bounds = new RedisClockBounds();
    call(bounds, 10, 10.1, 10.2);
    // Queued 8 ms behind a long script: Redis read its clock at 508 and the answer came at once.
    call(bounds, 500, 508, 508.1);
    const { earliest, latest, truth } = place(bounds, 508, 12);
    expect(latest).toBeGreaterThanOrEqual(truth);
    expect(latest - truth).toBeLessThan(0.5);
    expect(earliest).toBeLessThanOrEqual(truth);
  });

  it('a call whose answer was read late: the stamp is not placed late (the send would leave late and keep its stamp)', () => {
    const bounds = new RedisClockBounds();
    call(bounds, 10, 10.1, 10.2);
    // Redis answered at once; a busy event loop read the answer 8 ms later.
    call(bounds, 500, 500.1, 508.1);
    const { earliest, truth } = place(bounds, 500.1, 12);
    expect(earliest).toBeLessThanOrEqual(truth);
    expect(truth - earliest).toBeLessThan(0.5);
  });

  it('the first call alone: its whole round trip is the uncertainty, on both sides of the truth', () => {
    const bounds = new RedisClockBounds();
    call(bounds, 0, 30, 45);
    const { earliest, latest, truth } = place(bounds, 30, 5);
    expect(earliest).toBeCloseTo(truth - 30, 6);
    expect(latest).toBeCloseTo(truth + 15, 6);
  });

  it('widens with time between calls, as the clocks may drift: 0.5 ms a second', () => {
    const bounds = new RedisClockBounds();
    call(bounds, 0, 0.1, 0.2);
    // 10 s later, a slow call (20 ms each way) that pins neither bound: 0.2 ms + 5 ms a side.
    call(bounds, 9_980.1, 10_000.1, 10_020.2);
    const { earliest, latest, truth } = place(bounds, 10_000.1, 0);
    expect(latest - earliest).toBeCloseTo(0.2 + 2 * 0.0005 * 10_020, 6);
    expect(earliest).toBeLessThanOrEqual(truth);
    expect(latest).toBeGreaterThanOrEqual(truth);
  });

  it('starts again from a call that does not meet the bounds: a step of either clock', () => {
    const bounds = new RedisClockBounds();
    call(bounds, 10, 10.1, 10.2);
    // Redis's clock stepped 5 s ahead: this call's own bounds, not the old ones.
    bounds.observe(600.1 + OFFSET + 5000, 600, 600.2);
    const { earliest, latest } = bounds.span(600.1 + OFFSET + 5000 + 12);
    expect(earliest).toBeCloseTo(612, 6);
    expect(latest).toBeCloseTo(612.2, 6);
  });
});
