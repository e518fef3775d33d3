import type { RedisClient } from '../key-scope.js';
import { LUA_DIR, defineLuaCommandsLazily, loadLuaCommand } from '../lua-scripts.js';
import { relayDeadKey, relayKeys, relayLeaseKey, type RelayKeys } from './relay-keys.js';
import { RedisLease } from '../leases/redis-lease.js';
import { compareStreamIds, nextStreamId, streamIdAt } from './stream-id.js';

const RELAY_LUA = new URL('relay/', LUA_DIR);

/** Dead letters kept per target by default: the newest, so a receiver gone for days cannot fill Redis. */
export const DEFAULT_RELAY_DEAD_MAX = 10_000;

interface RelayCommands {
  cwRelayStartCursor(relay: string, cursors: string, stats: string, target: string, from: string): Promise<string>;
  /** Keys (relay, cursors, stats, lease, dead), then target, owner, entry, ordinal, outcome, reason, at, dead-max: advance.lua's header. */
  cwRelayAdvance(...keysThenArgs: string[]): Promise<string>;
}

/** One accepted Meta webhook as the relay stream holds it. */
export interface RelayEntry {
  id: string;
  /** Its place in the relay's count of appended bodies (the cursor keeps it, for the waiting figure). */
  ordinal: number;
  body: Buffer;
  /** ms the intake received it: its age decides when retrying ends. */
  receivedAt: number;
  /** Meta's Content-Type, as the request had it ('' when it had none). */
  contentType: string;
}

/** Where a target is: the last entry it is done with (forwarded or dead), and that entry's ordinal. */
export interface RelayCursor {
  id: string;
  ordinal: number;
}

/** What `advance` did: `done`; `lost`, another replica holds the lease; `behind`, the cursor is past the entry already. */
export type AdvanceOutcome = 'done' | 'lost' | 'behind';

/** The relay's state in Redis: the stream, each target's cursor and lease, the counts and the dead letters. */
export class RedisRelayStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #keys: RelayKeys;
  readonly #deadMax: number;

  constructor(redis: RedisClient, prefix: string, options: { deadMax?: number } = {}) {
    defineLuaCommandsLazily(redis, {
      cwRelayStartCursor: () => loadLuaCommand('start-cursor', RELAY_LUA),
      cwRelayAdvance: () => loadLuaCommand('advance', RELAY_LUA),
    });
    this.#redis = redis;
    this.#prefix = prefix;
    this.#keys = relayKeys(prefix);
    this.#deadMax = options.deadMax ?? DEFAULT_RELAY_DEAD_MAX;
  }

  get #commands(): RedisClient & RelayCommands {
    return this.#redis as RedisClient & RelayCommands;
  }

  /** Takes or renews `target`'s lease for `ttlMs`; false while another replica holds it. */
  async holdLease(target: string, owner: string, ttlMs: number): Promise<boolean> {
    return new RedisLease(this.#redis, relayLeaseKey(this.#prefix, target)).take(owner, ttlMs);
  }

  /** Gives the lease back (when `owner` holds it), so another replica takes over at once. */
  async releaseLease(target: string, owner: string): Promise<void> {
    await new RedisLease(this.#redis, relayLeaseKey(this.#prefix, target)).release(owner);
  }

  /** `target`'s cursor; a target without one starts at `fromMs` (see start-cursor.lua). */
  async cursor(target: string, fromMs: number): Promise<RelayCursor> {
    const { relay, cursors, stats } = this.#keys;
    return parseCursor(await this.#commands.cwRelayStartCursor(relay, cursors, stats, target, streamIdAt(fromMs)));
  }

  /** Up to `count` entries after `cursor`, oldest first. */
  async entriesAfter(cursor: RelayCursor, count: number): Promise<RelayEntry[]> {
    const read = (await this.#redis.xrangeBuffer(this.#keys.relay, `(${cursor.id}`, '+', 'COUNT', count)) as [Buffer, Buffer[]][];
    return read.map(([id, fields]) => entryOf(id.toString(), fields));
  }

  /** `target` is done with `entry`: its cursor moves past it, counted as `outcome`; a dead one is copied to its dead letters. */
  async advance(target: string, owner: string, entry: RelayEntry, outcome: 'forwarded' | 'dead', reason: string, now: number) {
    const { relay, cursors, stats } = this.#keys;
    const answer = await this.#commands.cwRelayAdvance(
      relay,
      cursors,
      stats,
      relayLeaseKey(this.#prefix, target),
      relayDeadKey(this.#prefix, target),
      target,
      owner,
      entry.id,
      String(entry.ordinal),
      outcome,
      reason,
      String(now),
      String(this.#deadMax),
    );
    return answer as AdvanceOutcome;
  }

  /** One failed attempt that will be tried again. */
  async countRetry(target: string): Promise<void> {
    await this.#redis.hincrby(this.#keys.stats, `retried:${target}`, 1);
  }

  /**
   * Drops what every target in `targets` is done with (XTRIM MINID past the lowest cursor), and
   * the cursors of targets no longer configured. Nothing is trimmed while a target has no cursor yet.
   */
  async trim(targets: readonly string[]): Promise<void> {
    const held = await this.#redis.hgetall(this.#keys.cursors);
    const gone = Object.keys(held).filter((name) => !targets.includes(name));
    if (gone.length > 0) await this.#redis.hdel(this.#keys.cursors, ...gone);
    let lowest: string | undefined;
    for (const target of targets) {
      const value = held[target];
      if (value === undefined) return;
      const { id } = parseCursor(value);
      if (lowest === undefined || compareStreamIds(id, lowest) < 0) lowest = id;
    }
    if (lowest !== undefined) await this.#redis.xtrim(this.#keys.relay, 'MINID', nextStreamId(lowest));
  }
}

/** `'<entry ID> <ordinal>'` as stored. */
export function parseCursor(value: string): RelayCursor {
  const [id = '0-0', ordinal = '0'] = value.split(' ');
  return { id, ordinal: Number(ordinal) };
}

function entryOf(id: string, fields: Buffer[]): RelayEntry {
  const entry: RelayEntry = { id, ordinal: 0, body: Buffer.alloc(0), receivedAt: 0, contentType: '' };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]?.toString();
    const value = fields[i + 1] ?? Buffer.alloc(0);
    if (name === 'body') entry.body = value;
    else if (name === 'at') entry.receivedAt = Number(value.toString());
    else if (name === 'type') entry.contentType = value.toString();
    else if (name === 'n') entry.ordinal = Number(value.toString());
  }
  return entry;
}
