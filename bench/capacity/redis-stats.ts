import type { Redis } from 'ioredis';

/**
 * What one Redis server did between two moments: commands by name (INFO commandstats), CPU
 * seconds (used_cpu_sys + used_cpu_user: main thread and background threads) and memory
 * (used_memory). Read on a Redis only the measured processes use, these are their cost.
 */
export interface RedisSnapshot {
  calls: Map<string, number>;
  cpuSeconds: number;
  usedMemory: number;
}

/** The bench's own questions to Redis, left out of the counts. */
const OWN_COMMANDS = new Set(['info', 'scan', 'memory|usage', 'memory', 'ping', 'hgetall', 'cluster|info', 'cluster|nodes']);

export async function redisSnapshot(redis: Redis): Promise<RedisSnapshot> {
  const [commandstats, cpu, memory] = await Promise.all([redis.info('commandstats'), redis.info('cpu'), redis.info('memory')]);
  const calls = new Map<string, number>();
  for (const match of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls.set(match[1] ?? '', Number(match[2]));
  }
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    calls,
    cpuSeconds: field(cpu, 'used_cpu_sys') + field(cpu, 'used_cpu_user'),
    usedMemory: field(memory, 'used_memory'),
  };
}

export interface RedisDelta {
  /** Commands by name, most called first, the bench's own questions left out. */
  calls: [string, number][];
  totalCalls: number;
  cpuSeconds: number;
  memoryBytes: number;
}

export function redisDelta(before: RedisSnapshot, after: RedisSnapshot): RedisDelta {
  const calls: [string, number][] = [];
  for (const [name, count] of after.calls) {
    const delta = count - (before.calls.get(name) ?? 0);
    if (delta > 0 && !OWN_COMMANDS.has(name)) calls.push([name, delta]);
  }
  calls.sort((a, b) => b[1] - a[1]);
  return {
    calls,
    totalCalls: calls.reduce((sum, [, n]) => sum + n, 0),
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
    memoryBytes: after.usedMemory - before.usedMemory,
  };
}

/** Adds deltas of several servers (the masters of a cluster). */
export function sumDeltas(deltas: readonly RedisDelta[]): RedisDelta {
  const byName = new Map<string, number>();
  for (const d of deltas) for (const [name, n] of d.calls) byName.set(name, (byName.get(name) ?? 0) + n);
  const calls = [...byName].sort((a, b) => b[1] - a[1]);
  return {
    calls,
    totalCalls: calls.reduce((sum, [, n]) => sum + n, 0),
    cpuSeconds: deltas.reduce((sum, d) => sum + d.cpuSeconds, 0),
    memoryBytes: deltas.reduce((sum, d) => sum + d.memoryBytes, 0),
  };
}

/** "evalsha 2.10, hset 0.50, …": commands per message, the `top` most called. */
export function perMessageText(delta: RedisDelta, messages: number, top = 6): string {
  return delta.calls
    .slice(0, top)
    .map(([name, n]) => `${name} ${(n / messages).toFixed(2)}`)
    .join(', ');
}

/**
 * Where a settled row's bytes are: every key of the prefix with its MEMORY USAGE (exact:
 * SAMPLES 0), grouped by its name with the campaign and numbers replaced by placeholders.
 * `window`: keys that hold an entry per recipient only for a sliding window (the duplicate
 * guard, the messaging limit's reach: 24 h by default); `retained`: the campaign's own keys
 * and the message-ID index, kept until the campaign is purged (RETENTION_DAYS); `fixed`:
 * queues, feed, metrics and the rest, which do not grow with the rows.
 */
export type KeyClass = 'window' | 'retained' | 'fixed';
export interface KeyCensus {
  byPattern: { pattern: string; keyClass: KeyClass; bytes: number; keys: number }[];
  bytesByClass: Record<KeyClass, number>;
}

const WINDOW_KEYS = /:(sent|reach):/;
const RETAINED_KEYS = /:campaign:<id>|:wamids/;

export async function keyCensus(
  redis: Redis,
  prefix: string,
  campaignIds: readonly string[],
  numbers: readonly string[],
): Promise<KeyCensus> {
  const byPattern = new Map<string, { bytes: number; keys: number }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', '0');
    const sizes = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      let pattern = key.split(prefix).join('<prefix>');
      for (const id of campaignIds) pattern = pattern.split(id).join('<id>');
      for (const number of numbers) pattern = pattern.split(number).join('<number>');
      const entry = byPattern.get(pattern) ?? { bytes: 0, keys: 0 };
      entry.bytes += Number(sizes[i]?.[1] ?? 0);
      entry.keys += 1;
      byPattern.set(pattern, entry);
    });
  } while (cursor !== '0');
  const classOf = (pattern: string): KeyClass =>
    WINDOW_KEYS.test(pattern) ? 'window' : RETAINED_KEYS.test(pattern) ? 'retained' : 'fixed';
  const list = [...byPattern].map(([pattern, v]) => ({ pattern, keyClass: classOf(pattern), ...v })).sort((a, b) => b.bytes - a.bytes);
  const bytesByClass: Record<KeyClass, number> = { window: 0, retained: 0, fixed: 0 };
  for (const entry of list) bytesByClass[entry.keyClass] += entry.bytes;
  return { byPattern: list, bytesByClass };
}
