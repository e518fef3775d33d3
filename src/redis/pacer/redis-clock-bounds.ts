/**
 * How far Redis's clock is from this process's `performance.now()`, as bounds learned from the
 * calls that read it. A call that left at `askedAt` and was answered at `answered` saw Redis read
 * its clock at `redisNow` somewhere in between: the offset (Redis's time minus this clock's) lies
 * between `redisNow - answered` and `redisNow - askedAt`. The bounds keep the tightest the recent
 * calls give (the fastest round trips pin them within a fraction of a ms, whatever a slow call
 * waited for, before Redis read its clock or after), widened by DRIFT_PER_MS as time passes, as
 * the two clocks drift apart (Redis's follows the wall clock). A call whose bounds do not meet
 * them (a step of either clock, a test's simulated clock) starts them again from its own.
 */
export class RedisClockBounds {
  /** Lowest and highest offset (ms) the calls allow; none before the first call. */
  #low = Number.NEGATIVE_INFINITY;
  #high = Number.POSITIVE_INFINITY;
  #observedAt: number | undefined;

  /** A call's reading: Redis's clock (ms) and when the call left and was answered (this clock). */
  observe(redisNowMs: number, askedAt: number, answered: number): void {
    const drift = (answered - (this.#observedAt ?? answered)) * DRIFT_PER_MS;
    this.#observedAt = answered;
    const callLow = redisNowMs - answered;
    const callHigh = redisNowMs - askedAt;
    const low = Math.max(this.#low - drift, callLow);
    const high = Math.min(this.#high + drift, callHigh);
    [this.#low, this.#high] = low <= high ? [low, high] : [callLow, callHigh];
  }

  /** The earliest and the latest moment on this clock that Redis's time `redisMs` can be. */
  span(redisMs: number): { earliest: number; latest: number } {
    return { earliest: redisMs - this.#high, latest: redisMs - this.#low };
  }
}

/**
 * How fast the bounds widen with time: 0.5 ms a second, the most an NTP daemon slews a clock
 * (500 ppm). Calls come many times a second while a number sends, so the bounds stay tight.
 */
const DRIFT_PER_MS = 0.0005;
