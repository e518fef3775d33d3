import type { Logger } from '../../logging/logger.js';
import { SEND_LATENCY_BUCKETS } from '../../metrics/buckets.js';
import type { SendObserver } from '../../metrics/send-observer.js';
import type { RedisClient } from '../key-scope.js';
import { RATE_KEY_TTL_SECONDS, SENDS_FIELD_SEPARATOR, metricsKeys, type MetricsKeys } from './metric-keys.js';
import { CounterTally, HistogramTally } from './metric-tallies.js';

/** How often a worker adds what it counted to Redis. */
export const FLUSH_INTERVAL_MS = 1000;
/** close(): the last flush waits at most this long (Redis may be away). */
const CLOSE_FLUSH_MS = 1000;

/** One flush's worth: results by number, latencies, and requests by number and second. */
class SendTallies {
  readonly sends = new CounterTally();
  readonly latency = new HistogramTally(SEND_LATENCY_BUCKETS);
  /** `<phone>|<unix second>` → requests. */
  readonly perSecond = new CounterTally();

  absorb(other: SendTallies): void {
    this.sends.absorb(other.sends);
    this.latency.absorb(other.latency);
    this.perSecond.absorb(other.perSecond);
  }
}

/**
 * A worker process's send metrics. Each request is counted in memory (no Redis command per
 * send: metrics may cost at most 3% of drain throughput); about once a second everything
 * counted goes to Redis in one MULTI, where `campaign serve` reads it at scrape time, summed
 * over every worker. A flush Redis did not take keeps its counts for the next one.
 */
export class RedisSendRecorder implements SendObserver {
  readonly #redis: RedisClient;
  readonly #keys: MetricsKeys;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;
  #pending = new SendTallies();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #lastWarning = 0;

  constructor(redis: RedisClient, prefix: string, options: { logger?: Logger; now?: () => number } = {}) {
    this.#redis = redis;
    this.#keys = metricsKeys(prefix);
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  recordSend(phoneNumberId: string, result: string, seconds: number): void {
    const tallies = this.#pending;
    tallies.sends.add(`${phoneNumberId}${SENDS_FIELD_SEPARATOR}${result}`);
    tallies.latency.observe(seconds);
    tallies.perSecond.add(`${phoneNumberId}${SENDS_FIELD_SEPARATOR}${Math.floor(this.#now() / 1000)}`);
  }

  start(intervalMs = FLUSH_INTERVAL_MS): void {
    this.#timer ??= setInterval(() => void this.flush().catch((error: unknown) => this.#warn(error)), intervalMs);
    // Never what keeps a worker alive.
    this.#timer.unref();
  }

  /** Adds what was counted to Redis; one flush at a time (with Redis away, counts wait in memory). */
  flush(): Promise<void> {
    this.#flushing ??= this.#write().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  /** Stops the timer and makes a last flush (bounded: Redis may be away). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_FLUSH_MS);
    });
    try {
      await Promise.race([this.#flushing?.then(() => this.flush()) ?? this.flush(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #write(): Promise<void> {
    const tallies = this.#pending;
    if (tallies.sends.isEmpty) return;
    this.#pending = new SendTallies();
    const tx = this.#redis.multi();
    tallies.sends.writeTo(tx, this.#keys.sends);
    tallies.latency.writeTo(tx, this.#keys.sendLatency);
    for (const [field, n] of tallies.perSecond.entries()) {
      const [phoneNumberId = '', second = '0'] = field.split(SENDS_FIELD_SEPARATOR);
      const key = this.#keys.rate(phoneNumberId, Number(second));
      tx.incrby(key, n).expire(key, RATE_KEY_TTL_SECONDS);
    }
    let replies: [Error | null, unknown][] | null;
    try {
      replies = await tx.exec();
    } catch (error) {
      // Redis away: nothing was applied; added to what the next flush writes.
      this.#pending.absorb(tallies);
      this.#warn(error);
      return;
    }
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (failed !== undefined && failed !== null) this.#warn(failed);
  }

  #warn(error: unknown): void {
    if (Date.now() - this.#lastWarning < 60_000) return;
    this.#lastWarning = Date.now();
    this.#logger?.warn({ err: error }, 'could not write send metrics to Redis (counts kept for the next flush)');
  }
}
