import type { CampaignEvent } from '../../events/campaign-event.js';
import type { DeadHookEvent } from '../../hooks/hook.js';
import type { HookDeadLetters, HookOutbox, QueuedHookEvent } from '../../hooks/hook-outbox.js';
import type { RedisClient } from '../key-scope.js';
import { hookKeys, type HookKeys } from './hook-keys.js';
import { hookScripts } from './hook-scripts.js';
import { streamFields } from './stream-fields.js';

/** Dead letters moved back per script call: each call is one short step on the hook's slot. */
const REDELIVER_STEP = 500;

/** A hook's outbox and dead letters in Redis (src/redis/hooks/hook-keys.ts; the scripts in src/redis/lua/hooks/). */
export class RedisHookOutbox implements HookOutbox, HookDeadLetters {
  readonly #redis: RedisClient;
  readonly #keys: HookKeys;
  readonly #scripts: ReturnType<typeof hookScripts>;

  constructor(redis: RedisClient, prefix: string, name: string) {
    this.#redis = redis;
    this.#keys = hookKeys(prefix, name);
    this.#scripts = hookScripts(redis);
  }

  async oldest(limit: number): Promise<QueuedHookEvent[]> {
    const entries = await this.#redis.xrange(this.#keys.outbox, '-', '+', 'COUNT', limit);
    const queued: QueuedHookEvent[] = [];
    for (const [entryId, list] of entries) {
      const fields = streamFields(list);
      queued.push({ entryId, event: parseEvent(fields.e), queuedAt: Number(fields.q) || Date.now() });
    }
    return queued;
  }

  async acknowledge(entryIds: readonly string[], lagSeconds: number): Promise<number> {
    if (entryIds.length === 0) return 0;
    return this.#scripts.cwHookAck(this.#keys.figures, this.#keys.outbox, Math.max(0, Math.round(lagSeconds * 1000) / 1000), ...entryIds);
  }

  async countRetried(events: number): Promise<void> {
    if (events > 0) await this.#scripts.cwHookCount(this.#keys.figures, 'retried', events);
  }

  async bury(entryIds: readonly string[], at: number, reason: string): Promise<number> {
    if (entryIds.length === 0) return 0;
    return this.#scripts.cwHookBury(this.#keys.figures, this.#keys.outbox, this.#keys.dead, at, reason, ...entryIds);
  }

  async list(limit: number): Promise<DeadHookEvent[]> {
    const entries = await this.#redis.xrange(this.#keys.dead, '-', '+', 'COUNT', limit);
    const dead: DeadHookEvent[] = [];
    for (const [, list] of entries) {
      const fields = streamFields(list);
      const event = parseEvent(fields.e);
      if (event !== undefined) dead.push({ event, failedAt: Number(fields.at) || 0, reason: fields.why ?? '' });
    }
    return dead;
  }

  async redeliver(at: number): Promise<number> {
    let moved = 0;
    for (;;) {
      const step = await this.#scripts.cwHookRedeliver(this.#keys.figures, this.#keys.outbox, this.#keys.dead, at, REDELIVER_STEP);
      moved += step;
      if (step < REDELIVER_STEP) return moved;
    }
  }
}

function parseEvent(text: string | undefined): CampaignEvent | undefined {
  if (text === undefined) return undefined;
  try {
    const event = JSON.parse(text) as unknown;
    return typeof event === 'object' && event !== null && typeof (event as { id?: unknown }).id === 'string'
      ? (event as CampaignEvent)
      : undefined;
  } catch {
    return undefined;
  }
}
