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
  cwReserveSlot(key: string, intervalMicros: number, ...now: number[]): Promise<string>;
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
  readonly #clock: (() => number) | undefined;
  #usualRoundTripMs = Number.POSITIVE_INFINITY;
  #sequence = 0;

  /**
   * `auditKey`: also keep every admission, stamped on Redis's clock (µs), in this sorted set,
   * never trimmed. For tests: what the pacer let through is then checked where it is decided,
   * whatever delays a loaded machine adds on the way to the receiver.
   */
  /**
   * `clock`: the time now in µs, read at each call instead of Redis's TIME: a test drives the
   * pacer's decisions through simulated time with it (see grantWait and admitWait).
   */
  constructor(
    redis: RedisClient,
    options: { prefix: string; phoneNumberId: string; messagesPerSecond: number; auditKey?: string; clock?: () => number },
  ) {
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
    this.#clock = options.clock;
    this.#windowMicros = 1_000_000 + GUARD_MICROS;
    this.#intervalMicros = Math.round(this.#windowMicros / options.messagesPerSecond);
  }

  async reserveSlot(): Promise<void> {
    await sleepMicros(await this.grantWait());
  }

  /** Reserves the next slot; answers the wait until it, in µs. */
  async grantWait(): Promise<number> {
    const now = this.#clock === undefined ? [] : [Math.round(this.#clock())];
    return Number(await this.#redis.cwReserveSlot(this.#slotKey, this.#intervalMicros, ...now));
  }

  /** One ask of the ceiling for the send `member`: 0 when admitted (and recorded), else the wait before asking again, in µs. */
  async admitWait(member: string): Promise<number> {
    const keys = this.#auditKey === undefined ? [this.#logKey] : [this.#logKey, this.#auditKey];
    const now = this.#clock === undefined ? [] : [Math.round(this.#clock())];
    return Number(await this.#redis.cwAdmit(keys.length, ...keys, this.#rate, member, this.#windowMicros, ...now));
  }

  async admit(): Promise<void> {
    const member = `${this.#memberPrefix}-${++this.#sequence}`;
    let restamps = 0;
    for (;;) {
      const asked = performance.now();
      const wait = await this.admitWait(member);
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
 * The ceiling counts a second plus this guard, and the slots are spaced to match. Sends are
 * stamped at admission but arrive after event-loop, network and receiver delays that vary by
 * tens of milliseconds on a busy host; the guard absorbs that jitter, so a receiver's sliding
 * second never holds more than the rate. Jitter is a time, not a share of the interval: a
 * fixed guard costs every rate the same 2.4% (3.90/s of 4, 975/s of 1,000). At SEND_RATE=1000
 * a 3 ms guard let 1,011–1,027 arrive in a sliding second at the sandbox, 20 ms 996–1,000, and
 * 25 ms 992–994 (`npm run bench -- --only toptier`). A guard of three intervals instead cost
 * low rates most of their pace (2.3/s of 4).
 */
const GUARD_MICROS = 25_000;

/** An admission answered this much later than the usual round trip is stamped again. */
const LATE_ADMISSION_MS = 5;
/** Bounded: on a starved host every answer is late, and the send must still go out. */
const MAX_RESTAMPS = 5;

async function sleepMicros(micros: number): Promise<void> {
  if (micros >= 500) await new Promise((resolve) => setTimeout(resolve, Math.ceil(micros / 1000)));
}
