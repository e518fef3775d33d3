import type { RedisClient } from '../key-scope.js';
import { LUA_DIR, defineLuaCommandsLazily, loadLuaCommand } from '../lua-scripts.js';

interface LeaseCommands {
  cwLease(lease: string, owner: string, ttl: string): Promise<number>;
}

/**
 * A lease in Redis (src/redis/lua/leases/lease.lua): held by one `serve` replica at a time,
 * renewed by its holder, left to expire by one that dies. The relay's targets, the events'
 * fanout and each hook's delivery are each done by the holder of their lease.
 */
export class RedisLease {
  readonly #redis: RedisClient & LeaseCommands;
  readonly #key: string;

  constructor(redis: RedisClient, key: string) {
    defineLuaCommandsLazily(redis, { cwLease: () => loadLuaCommand('lease', new URL('leases/', LUA_DIR)) });
    this.#redis = redis as RedisClient & LeaseCommands;
    this.#key = key;
  }

  /** Takes or renews it for `ttlMs`: whether `owner` holds it now. */
  async take(owner: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.cwLease(this.#key, owner, String(Math.max(1, Math.round(ttlMs))))) === 1;
  }

  /** Gives it back when `owner` holds it, so another replica takes over at once. */
  async release(owner: string): Promise<void> {
    await this.#redis.cwLease(this.#key, owner, '0');
  }
}
