import { describe, expect, it } from 'vitest';
import { afterFailure, nextStep, type Failing } from '../../src/relay/relay-attempts.js';

/** When a relay target's next body is posted, waited for or given up: one attempt per backoff while it fails. */
const RETRY_MS = 60_000;
const noJitter = (): number => 0;

describe('relay attempts', () => {
  it('a target that is not failing gets the next body at once, however old', () => {
    expect(nextStep(undefined, 0, 10, RETRY_MS)).toEqual({ kind: 'attempt' });
    expect(nextStep(undefined, 0, RETRY_MS * 10, RETRY_MS)).toEqual({ kind: 'attempt' });
  });

  it('after failures, a body waits out the backoff: 1 s, 2 s, 4 s … at most 30 s', () => {
    let failing: Failing | undefined;
    const delays: number[] = [];
    let now = 1000;
    for (let i = 0; i < 7; i++) {
      const after = afterFailure(failing, 'HTTP 500', 1000, now, RETRY_MS * 100, noJitter);
      expect(after.dead).toBe(false);
      failing = after.failing;
      delays.push(failing.nextAttemptAt - now);
      expect(nextStep(failing, 1000, now, RETRY_MS * 100)).toEqual({ kind: 'wait', ms: failing.nextAttemptAt - now });
      expect(nextStep(failing, 1000, failing.nextAttemptAt, RETRY_MS * 100)).toEqual({ kind: 'attempt' });
      now = failing.nextAttemptAt;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(failing).toMatchObject({ failures: 7, reason: 'HTTP 500' });
  });

  it('a failed attempt of a body older than the retry window makes it dead', () => {
    expect(afterFailure(undefined, 'ECONNREFUSED', 0, RETRY_MS - 1, RETRY_MS, noJitter).dead).toBe(false);
    const { failing, dead } = afterFailure(undefined, 'ECONNREFUSED', 0, RETRY_MS, RETRY_MS, noJitter);
    expect(dead).toBe(true);
    // The target still fails: the next attempt waits its backoff.
    expect(failing).toEqual({ failures: 1, nextAttemptAt: RETRY_MS + 1000, reason: 'ECONNREFUSED' });
  });

  it('between attempts, bodies past the window are dead at once (with the last reason), younger ones wait', () => {
    const failing: Failing = { failures: 3, nextAttemptAt: 100_000, reason: 'HTTP 503' };
    expect(nextStep(failing, 0, 90_000, RETRY_MS)).toEqual({ kind: 'dead', reason: 'HTTP 503' });
    expect(nextStep(failing, 50_000, 90_000, RETRY_MS)).toEqual({ kind: 'wait', ms: 10_000 });
    // When the next attempt is due, even an old body is tried once more: the target may be back.
    expect(nextStep(failing, 0, 100_000, RETRY_MS)).toEqual({ kind: 'attempt' });
  });
});
