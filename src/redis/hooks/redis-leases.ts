import type { HookLeases } from '../../hooks/hook-dispatcher.js';
import type { RedisClient } from '../key-scope.js';
import { hookKeys } from './hook-keys.js';
import { RedisLease } from '../leases/redis-lease.js';

/** Each hook's lease, in the hook's slot (src/redis/hooks/hook-keys.ts). */
export class RedisHookLeases implements HookLeases {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  take(name: string, token: string, ttlMs: number): Promise<boolean> {
    return new RedisLease(this.#redis, hookKeys(this.#prefix, name).lease).take(token, ttlMs);
  }

  release(name: string, token: string): Promise<void> {
    return new RedisLease(this.#redis, hookKeys(this.#prefix, name).lease).release(token);
  }
}
