/**
 * Meta's per-phone-number throughput cap (reference §4: 80 msg/s by default), as a strict
 * sliding log: at most `perSecond` accepted sends in ANY 1000 ms window, not per calendar
 * second. A fixed window would let a client send 2× the cap across a second boundary; the
 * sliding log is what lets tests prove the client never bursts.
 *
 * Each phone number keeps only its last `perSecond` acceptance times in a ring, so a check
 * is O(1): the send fits when the ring is not full yet or its oldest entry has left the
 * window.
 */
export const WINDOW_MS = 1000;

class SlidingLog {
  private readonly times: Float64Array;
  private next = 0;
  private count = 0;

  constructor(private readonly capacity: number) {
    this.times = new Float64Array(capacity);
  }

  fits(now: number): boolean {
    if (this.count < this.capacity) return true;
    // Full ring: the slot about to be overwritten holds the oldest of the last N times.
    return (this.times[this.next] ?? 0) <= now - WINDOW_MS;
  }

  record(now: number): void {
    this.times[this.next] = now;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }
}

export class ThroughputLimiter {
  private readonly logs = new Map<string, SlidingLog>();

  /** `perSecond` 0 means unlimited (benchmarks measure the client, not Meta's cap). */
  constructor(private readonly perSecond: number) {}

  /**
   * Whether one more send from this number would stay within the cap. Checking and
   * recording are separate so a send refused by a later check (pair limit) uses no quota.
   */
  fits(phoneNumberId: string, now: number): boolean {
    if (this.perSecond === 0) return true;
    return this.logs.get(phoneNumberId)?.fits(now) ?? true;
  }

  record(phoneNumberId: string, now: number): void {
    if (this.perSecond === 0) return;
    let log = this.logs.get(phoneNumberId);
    if (log === undefined) {
      log = new SlidingLog(this.perSecond);
      this.logs.set(phoneNumberId, log);
    }
    log.record(now);
  }

  reset(): void {
    this.logs.clear();
  }
}
