/**
 * When a failed outbound delivery (a hook's batch, a relayed webhook) is tried again: 1 s after
 * the first failure, then twice as long each time, at most MAX_DELAY_MS apart, with up to a
 * tenth more at random so receivers coming back are not hit by every sender at once. It is
 * retried until its oldest event is older than HOOK_RETRY_HOURS; then it is dead.
 */
const FIRST_DELAY_MS = 1000;
export const MAX_DELAY_MS = 30_000;

/** The wait before attempt `failures + 1`, after `failures` failed attempts (from 1). */
export function retryDelayMs(failures: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, Math.min(failures - 1, 20)));
  return Math.round(base * (1 + random() / 10));
}

/** Whether a delivery whose oldest content was created at `createdAt` (ms) has been retried long enough. */
export function retriesExhausted(createdAt: number, now: number, retryMs: number): boolean {
  return now - createdAt >= retryMs;
}
