/**
 * Meta's (business number, recipient) pair rate limit (reference §4, code 131056): about
 * one message per 6 s to the same user, with bursts of up to 45 borrowed from future
 * quota. Modelled as a token bucket per pair: `burst` tokens, one back every `refillMs`.
 * Buckets refill lazily on use, so an idle pair costs nothing until it is seen again.
 */
export interface PairLimitSettings {
  burst: number;
  refillMs: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** A full bucket is the same as no bucket; sweeping those keeps a 1M-recipient run small. */
const SWEEP_EVERY = 10_000;
const SWEEP_ABOVE = 50_000;

export class PairLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private takesSinceSweep = 0;

  constructor(private readonly settings: PairLimitSettings) {}

  /** Takes one token for this pair if it has one; false means "answer 131056". */
  tryTake(phoneNumberId: string, waId: string, now: number): boolean {
    const key = `${phoneNumberId}:${waId}`;
    const bucket = this.buckets.get(key);
    if (bucket === undefined) {
      this.buckets.set(key, { tokens: this.settings.burst - 1, updatedAt: now });
      this.maybeSweep(now);
      return true;
    }
    bucket.tokens = this.refilled(bucket, now);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  reset(): void {
    this.buckets.clear();
    this.takesSinceSweep = 0;
  }

  private refilled(bucket: Bucket, now: number): number {
    const gained = Math.max(0, now - bucket.updatedAt) / this.settings.refillMs;
    return Math.min(this.settings.burst, bucket.tokens + gained);
  }

  private maybeSweep(now: number): void {
    if (++this.takesSinceSweep < SWEEP_EVERY || this.buckets.size < SWEEP_ABOVE) return;
    this.takesSinceSweep = 0;
    for (const [key, bucket] of this.buckets) {
      if (this.refilled(bucket, now) >= this.settings.burst) this.buckets.delete(key);
    }
  }
}
