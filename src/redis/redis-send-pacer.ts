import { randomBytes } from 'node:crypto';
import type { RedisClient } from './key-scope.js';
import { loadLuaCommand, loadLuaScript } from './lua-scripts.js';
import { pacerKeys } from './service-keys.js';
import type { SendPacer } from '../campaigns/feed/send-pacer.js';

/** The pacer's scripts (src/redis/lua/pacer/): spacing, then the ceiling. Their headers say why each exists. */
const PACER_LUA_DIR = new URL('./lua/pacer/', import.meta.url);
const RESERVE_SLOT = loadLuaCommand('reserve-slot', PACER_LUA_DIR);
/** Defined without a key count: each call passes one key (the log) or two (and the audit key, see `auditKey`). */
const ADMIT = loadLuaScript('admit', PACER_LUA_DIR);

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
      redis.defineCommand('cwReserveSlot', RESERVE_SLOT);
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
