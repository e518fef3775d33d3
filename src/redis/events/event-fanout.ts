import { randomUUID } from 'node:crypto';
import { eventFromEntry, type CampaignEvent } from '../../events/campaign-event.js';
import { hookWants } from '../../hooks/hook-filter.js';
import { RepeatingTask } from '../../hooks/repeating-task.js';
import type { Logger } from '../../logging/logger.js';
import type { RedisClient } from '../key-scope.js';
import { phoneNumbersKey } from '../ledger/ledger-keys.js';
import { connectionReady } from '../redis-connection.js';
import { fanoutLeaseKey, hookKeys } from '../hooks/hook-keys.js';
import { hookScripts } from '../hooks/hook-scripts.js';
import { RedisHookRegistry } from '../hooks/redis-hook-registry.js';
import { RedisLease } from '../leases/redis-lease.js';
import { eventStreamKey } from './event-keys.js';
import { streamFields } from '../hooks/stream-fields.js';

export interface EventFanoutOptions {
  redis: RedisClient;
  prefix: string;
  logger: Logger;
  /** How often the numbers' streams are looked at when they were empty. */
  pollMs?: number;
  /** How long the fanout's lease lasts unrenewed: how soon another replica takes over from one that died. */
  leaseMs?: number;
  now?: () => number;
}

/** Entries read from a number's stream at a time. */
const CHUNK = 1000;
/** Events per script call that queues them in a hook's outbox. */
const APPEND_STEP = 500;
const DEFAULT_POLL_MS = 200;
const DEFAULT_LEASE_MS = 5000;

/**
 * Moves the events the ledger wrote to each number's stream (src/redis/lua/includes/events.lua)
 * on to the outbox of every hook that wants them, then deletes them from the number's stream:
 * a crash in between sends an event twice (its ID is stable, receivers deduplicate), never
 * loses one. Events no hook wants are deleted too. One `serve` replica does it at a time (a
 * lease), so each number's events reach the outboxes in their order. It only moves entries
 * in Redis: it never waits on a delivery.
 */
export class EventFanout {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #registry: RedisHookRegistry;
  readonly #lease: RedisLease;
  readonly #token = randomUUID();
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #now: () => number;
  readonly #task: RepeatingTask;
  #leaseTakenAt = 0;

  constructor(options: EventFanoutOptions) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#registry = new RedisHookRegistry(options.redis, options.prefix);
    this.#lease = new RedisLease(options.redis, fanoutLeaseKey(options.prefix));
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#now = options.now ?? Date.now;
    this.#task = new RepeatingTask(
      () => this.step(),
      (error) => options.logger.warn({ err: error }, 'event fanout failed; trying again'),
      undefined,
      () => connectionReady(options.redis),
    );
  }

  start(): void {
    this.#task.start();
  }

  async stop(boundMs = 2000): Promise<void> {
    await this.#task.stop(boundMs);
    await this.#lease.release(this.#token).catch(() => undefined);
  }

  /** One pass over every number's stream, when this replica holds the lease: answers how long to wait before the next (ms). */
  async step(): Promise<number> {
    if (!(await this.#holdLease(true))) return this.#leaseMs / 5;
    let moved = 0;
    for (const number of await this.#redis.smembers(phoneNumbersKey(this.#prefix))) {
      if (this.#task.stopped || !(await this.#holdLease(false))) return this.#pollMs;
      moved += await this.fanOutNumber(number);
    }
    return moved > 0 ? 0 : this.#pollMs;
  }

  /** Moves the oldest CHUNK events of one number's stream; answers how many entries were taken off it. */
  async fanOutNumber(phoneNumberId: string): Promise<number> {
    const key = eventStreamKey(this.#prefix, phoneNumberId);
    const entries = await this.#redis.xrange(key, '-', '+', 'COUNT', CHUNK);
    if (entries.length === 0) return 0;
    // Read after the entries: a hook added before an event was written is in this list.
    const hooks = await this.#registry.all();
    const events = entries
      .map(([id, list]) => eventFromEntry(phoneNumberId, id, streamFields(list)))
      .filter((event): event is CampaignEvent => event !== undefined);
    const at = this.#now();
    for (const { definition } of hooks) {
      const wanted = events.filter((event) => hookWants(definition, event)).map((event) => JSON.stringify(event));
      const keys = hookKeys(this.#prefix, definition.name);
      for (let start = 0; start < wanted.length; start += APPEND_STEP) {
        await hookScripts(this.#redis).cwHookAppend(keys.figures, keys.outbox, at, ...wanted.slice(start, start + APPEND_STEP));
      }
    }
    await this.#redis.xdel(key, ...entries.map(([id]) => id));
    return entries.length;
  }

  /** Takes the lease, or renews it when a third of it has gone by (`always`: renews now). */
  async #holdLease(always: boolean): Promise<boolean> {
    const now = Date.now();
    if (!always && now - this.#leaseTakenAt < this.#leaseMs / 3) return true;
    const held = await this.#lease.take(this.#token, this.#leaseMs);
    this.#leaseTakenAt = held ? now : 0;
    return held;
  }
}
