import { retriesExhausted, retryDelayMs } from '../outbound/retry-schedule.js';

/**
 * When a relay target's next body is posted, waited for, or given up. The bodies go one after
 * another, so while the target fails, its first body waits out the backoff and the rest wait
 * behind it. A body older than HOOK_RETRY_HOURS is dead: after one more failed attempt, or at
 * once while the target is between attempts (it failed a moment ago), so that a receiver
 * that stays away costs one attempt per backoff, not one per body, and the backlog behind it
 * drains into the dead letters instead of growing.
 */

/** A target that is failing: how many attempts in a row failed, when the next may be made, and the last failure's reason. */
export interface Failing {
  failures: number;
  nextAttemptAt: number;
  reason: string;
}

export type RelayStep = { kind: 'attempt' } | { kind: 'dead'; reason: string } | { kind: 'wait'; ms: number };

/** What to do with a body received at `receivedAt`, now, given how the target is failing (undefined: it is not). */
export function nextStep(failing: Failing | undefined, receivedAt: number, now: number, retryMs: number): RelayStep {
  if (failing === undefined || now >= failing.nextAttemptAt) return { kind: 'attempt' };
  if (retriesExhausted(receivedAt, now, retryMs)) return { kind: 'dead', reason: failing.reason };
  return { kind: 'wait', ms: failing.nextAttemptAt - now };
}

/**
 * After a failed attempt: the target's new failing state, and whether the body is dead
 * (retried long enough) or is tried again at `failing.nextAttemptAt`.
 */
export function afterFailure(
  failing: Failing | undefined,
  reason: string,
  receivedAt: number,
  now: number,
  retryMs: number,
  random: () => number = Math.random,
): { failing: Failing; dead: boolean } {
  const failures = (failing?.failures ?? 0) + 1;
  return {
    failing: { failures, nextAttemptAt: now + retryDelayMs(failures, random), reason },
    dead: retriesExhausted(receivedAt, now, retryMs),
  };
}
