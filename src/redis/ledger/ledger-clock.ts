import type { RedisClient } from '../key-scope.js';

/** A clock a test moves (LedgerOptions.clock), read at each call; production sets none: Redis's clock. */
export interface LedgerClockSetting {
  /** ms added to Redis's TIME. */
  offsetMs: number;
  /** Set: the clock stands at this time (ms) instead, and Redis's TIME is not read. */
  stoppedAt?: number | undefined;
}

/**
 * The ledger's time: the scripts compute it from their `clock` argument (lua/includes/clock.lua),
 * and what the ledger decides in TypeScript reads the same clock here.
 */
export class LedgerClock {
  readonly #redis: RedisClient;
  readonly #setting: LedgerClockSetting | undefined;

  constructor(redis: RedisClient, setting?: LedgerClockSetting) {
    this.#redis = redis;
    this.#setting = setting;
  }

  /** The scripts' `clock` argument: the offset in ms, or `@<ms>` for a stopped clock. */
  arg(): string {
    const setting = this.#setting;
    if (setting === undefined) return '0';
    return setting.stoppedAt === undefined ? String(Math.round(setting.offsetMs)) : `@${Math.round(setting.stoppedAt)}`;
  }

  /** The time now on the ledger's clock, ms: what a script run now would take. */
  async now(): Promise<number> {
    const stoppedAt = this.#setting?.stoppedAt;
    if (stoppedAt !== undefined) return Math.round(stoppedAt);
    const [seconds, micros] = await this.#redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) + Math.round(this.#setting?.offsetMs ?? 0);
  }
}
