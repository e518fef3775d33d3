import { WINDOW_MS } from './throughput-limiter.js';

/**
 * Every /messages request that got past the token check, accepted or not: how many, and
 * the most in any sliding 1000 ms window. Accepted messages alone cannot show how hard a
 * client hammers a throttled or failing API; this is the number that does (a client that
 * backs off properly keeps it low while 130429s are coming back).
 *
 * Only the arrival times still inside the window are kept, so memory follows the request
 * rate, not the run length.
 */
export class RequestStats {
  private total = 0;
  private busiest = 0;
  private times: number[] = [];
  private head = 0;

  get requests(): number {
    return this.total;
  }

  /** Same measure as AcceptedLog.busiestSecond: arrivals within (t - 1000 ms, t]. */
  get busiestSecond(): number {
    return this.busiest;
  }

  record(now: number): void {
    this.total += 1;
    this.times.push(now);
    const cutoff = now - WINDOW_MS;
    while ((this.times[this.head] ?? Infinity) <= cutoff) this.head++;
    this.busiest = Math.max(this.busiest, this.times.length - this.head);
    // Drop the expired prefix once it is most of the array: amortised O(1), bounded memory.
    if (this.head >= 1024 && this.head * 2 >= this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  reset(): void {
    this.total = 0;
    this.busiest = 0;
    this.times = [];
    this.head = 0;
  }
}
