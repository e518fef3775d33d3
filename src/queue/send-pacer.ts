import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/key-scope.js';
import { pacerKeys } from '../redis/service-keys.js';
import type { SendPacer } from '../campaigns/send/send-processor.js';

/**
 * Step 1, spacing. GCRA (generic cell rate algorithm) on Redis's clock: each send reserves
 * the next slot, exactly 1/rate after the previous one, for every worker of the phone
 * number, so sends leave evenly spaced instead of in bursts and no waiter polls.
 * KEYS: slot key. ARGV: interval (µs). Returns the wait (µs).
 */
const RESERVE_SLOT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
redis.call('SET', KEYS[1], string.format('%.0f', tat + tonumber(ARGV[1])), 'PX', 60000)
return string.format('%.0f', tat - now)`;

/**
 * Step 2, the ceiling. A slot can be reached late (a busy event loop fires timers late),
 * and a late send bunches with the next ones. So at the moment of sending, a sliding log
 * of the last second's dispatches must hold fewer than `rate`; otherwise wait for the
 * oldest to age out. The member's own earlier stamp is dropped first, so a send can be
 * stamped again. KEYS: log key (and, for tests, an audit key that keeps every admission).
 * ARGV: rate, unique member, window (µs). Returns the wait (µs), 0 = go.
 */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[3])
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return string.format('%.0f', oldest + window - now + 1)
end
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[2])
redis.call('PEXPIRE', KEYS[1], 2000)
if KEYS[2] then redis.call('ZADD', KEYS[2], string.format('%.0f', now), ARGV[2]) end
return '0'`;

interface PacerCommands {
  cwReserveSlot(key: string, intervalMicros: number): Promise<string>;
  cwAdmit(numberOfKeys: number, ...args: (string | number)[]): Promise<string>;
}

/** Evenly spaced sends, never more than `messagesPerSecond` in any second, across all workers. */
export class RedisSendPacer implements SendPacer {
  readonly #redis: RedisClient & PacerCommands;
  readonly #slotKey: string;
  readonly #logKey: string;
  readonly #rate: number;
  readonly #intervalMicros: number;
  readonly #windowMicros: number;
  readonly #memberPrefix = randomBytes(4).toString('hex');
  readonly #auditKey: string | undefined;
  #usualRoundTripMs = Number.POSITIVE_INFINITY;
  #sequence = 0;

  /**
   * `auditKey`: also keep every admission, stamped on Redis's clock (µs), in this sorted set,
   * never trimmed. For tests: what the pacer let through is then checked where it is decided,
   * whatever delays a loaded machine adds on the way to the receiver.
   */
  constructor(redis: RedisClient, options: { prefix: string; phoneNumberId: string; messagesPerSecond: number; auditKey?: string }) {
    if (!('cwReserveSlot' in redis)) {
      redis.defineCommand('cwReserveSlot', { numberOfKeys: 1, lua: RESERVE_SLOT });
      // One key (the log), or two with an admission record for tests (see `auditKey`).
      redis.defineCommand('cwAdmit', { lua: ADMIT });
    }
    this.#redis = redis as RedisClient & PacerCommands;
    // In the number's scope: both scripts stay in its cluster slot.
    const keys = pacerKeys(options.prefix, options.phoneNumberId);
    this.#slotKey = keys.slot;
    this.#logKey = keys.sent;
    this.#rate = options.messagesPerSecond;
    this.#auditKey = options.auditKey;
    this.#windowMicros = 1_000_000 + Math.max(GUARD_MIN_MICROS, GUARD_INTERVALS * Math.round(1_000_000 / options.messagesPerSecond));
    this.#intervalMicros = Math.round(this.#windowMicros / options.messagesPerSecond);
  }

  async reserveSlot(): Promise<void> {
    await sleepMicros(Number(await this.#redis.cwReserveSlot(this.#slotKey, this.#intervalMicros)));
  }

  async admit(): Promise<void> {
    const member = `${this.#memberPrefix}-${++this.#sequence}`;
    let restamps = 0;
    for (;;) {
      const asked = performance.now();
      const keys = this.#auditKey === undefined ? [this.#logKey] : [this.#logKey, this.#auditKey];
      const wait = Number(await this.#redis.cwAdmit(keys.length, ...keys, this.#rate, member, this.#windowMicros));
      const roundTrip = performance.now() - asked;
      // The usual round trip to this Redis: drops to any faster one at once, creeps up slowly,
      // so a remote Redis is not "late" on every call and a stall does not become the norm.
      this.#usualRoundTripMs = Math.min(roundTrip, this.#usualRoundTripMs + 0.05);
      if (wait === 0) {
        // The stamp is only true if the send leaves right after it. An answer that came back
        // late (a starved process, a busy event loop) means it would leave later than stamped
        // and bunch with the sends stamped after it: stamp it again, now.
        if (roundTrip <= this.#usualRoundTripMs + LATE_ADMISSION_MS || restamps === MAX_RESTAMPS) return;
        restamps++;
        continue;
      }
      await sleepMicros(wait);
    }
  }
}

/**
 * The ceiling counts a second plus three send intervals (37.5 ms at 80/s). Sends are stamped
 * at admission, but arrive after event-loop, network and receiver delays that vary by tens
 * of milliseconds on a busy host; without the guard those delays bunched up to 84 arrivals
 * into one receiving second. Two intervals (25 ms) still let 81 through once in a full test
 * run on this 2-core machine. It costs about 3.6% of the rate (77.1/s for SEND_RATE=80).
 */
const GUARD_INTERVALS = 3;
/**
 * And never less than 25 ms: at high rates three intervals are only milliseconds (3 ms at
 * 1,000/s), less than the jitter between stamping and arrival. At SEND_RATE=1000 a 3 ms guard
 * let 1,011–1,027 arrive in a sliding second at the sandbox, 20 ms let 996–1,000 through, and
 * 25 ms 992–994, at 975/s (`npm run bench -- --only toptier`, 2 runs each). Below 120 msg/s
 * three intervals are longer, so the default 80/s is unchanged.
 */
const GUARD_MIN_MICROS = 25_000;

/** An admission answered this much later than the usual round trip is stamped again. */
const LATE_ADMISSION_MS = 5;
/** Bounded: on a starved host every answer is late, and the send must still go out. */
const MAX_RESTAMPS = 5;

async function sleepMicros(micros: number): Promise<void> {
  if (micros >= 500) await new Promise((resolve) => setTimeout(resolve, Math.ceil(micros / 1000)));
}
