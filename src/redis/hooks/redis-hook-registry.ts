import { z } from 'zod';
import { Secret } from '../../config/secret.js';
import { EVENT_TYPES } from '../../events/campaign-event.js';
import type { HookDefinition, HookFigures } from '../../hooks/hook.js';
import { hooksRegistryKey } from '../events/event-keys.js';
import type { RedisClient } from '../key-scope.js';
import { hookKeys } from './hook-keys.js';

/** A hook as the registry keeps it: its definition and the secret its batches are signed with. */
export interface StoredHook {
  definition: HookDefinition;
  secret: Secret;
}

const storedHookSchema = z.object({
  name: z.string(),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  campaignId: z.string().optional(),
  createdAt: z.number(),
  secret: z.string().min(1),
});

/**
 * The outbound hooks' registry (`<prefix>:hooks`: name → the hook as JSON, its secret with it)
 * and each hook's figures. A hook's figures hash is written after its registry entry and
 * deleted after it: the scripts that queue, acknowledge and bury its events act only while
 * the hash exists, so a removed hook leaves no outbox behind.
 */
export class RedisHookRegistry {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  /** Adds the hook: false when its name is taken (nothing written then). */
  async add(definition: HookDefinition, secret: string): Promise<{ added: boolean }> {
    const registry = hooksRegistryKey(this.#prefix);
    const stored = { ...definition, secret };
    const added = (await this.#redis.hsetnx(registry, definition.name, JSON.stringify(stored))) === 1;
    if (added) {
      await this.#redis.hset(hookKeys(this.#prefix, definition.name).figures, { queued: 0, delivered: 0, retried: 0, dead: 0 });
    }
    return { added };
  }

  /** Every hook, by name; an entry that cannot be read (written by hand) is left out. */
  async all(): Promise<StoredHook[]> {
    const entries = await this.#redis.hgetall(hooksRegistryKey(this.#prefix));
    return Object.values(entries)
      .map(parseStoredHook)
      .filter((hook): hook is StoredHook => hook !== undefined)
      .sort((a, b) => a.definition.name.localeCompare(b.definition.name));
  }

  async get(name: string): Promise<StoredHook | undefined> {
    const entry = await this.#redis.hget(hooksRegistryKey(this.#prefix), name);
    return entry === null ? undefined : parseStoredHook(entry);
  }

  /** Removes the hook and its outbox, dead letters and figures: false when there was none. Answers how many hooks remain. */
  async remove(name: string): Promise<{ removed: boolean; hooks: number }> {
    const registry = hooksRegistryKey(this.#prefix);
    const removed = (await this.#redis.hdel(registry, name)) === 1;
    const keys = hookKeys(this.#prefix, name);
    if (removed) await this.#redis.del(keys.figures, keys.outbox, keys.dead, keys.lease);
    return { removed, hooks: await this.#redis.hlen(registry) };
  }

  /** The hook's figures now: its counters, and the events in its outbox. */
  async figures(name: string): Promise<HookFigures> {
    const keys = hookKeys(this.#prefix, name);
    const [counters, waiting] = await Promise.all([this.#redis.hgetall(keys.figures), this.#redis.xlen(keys.outbox)]);
    const figures: HookFigures = {
      queued: count(counters.queued),
      delivered: count(counters.delivered),
      retried: count(counters.retried),
      dead: count(counters.dead),
      waiting,
    };
    const lag = Number(counters.lag);
    if (counters.lag !== undefined && Number.isFinite(lag)) figures.lagSeconds = lag;
    return figures;
  }
}

function parseStoredHook(entry: string): StoredHook | undefined {
  let json: unknown;
  try {
    json = JSON.parse(entry);
  } catch {
    return undefined;
  }
  const parsed = storedHookSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { secret, campaignId, ...rest } = parsed.data;
  const definition: HookDefinition = campaignId === undefined ? rest : { ...rest, campaignId };
  return { definition, secret: new Secret(secret) };
}

function count(value: string | undefined): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}
