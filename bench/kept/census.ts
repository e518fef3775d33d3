import type { Redis } from 'ioredis';

/**
 * Where a private Redis's bytes are: every key it holds (SCAN with no MATCH: the whole
 * Redis is the run's) with its MEMORY USAGE … SAMPLES 0 (exact: every element), grouped by
 * its name with the prefix, campaign IDs, phone-number IDs and any other run of digits or hex
 * (job and row numbers, buckets, digests) replaced by placeholders, then each pattern put in a family that names
 * what it is for. MEMORY USAGE sums less than used_memory grows by (the keyspace's own
 * tables, the allocator's rounding, the scripts cache): the report shows that rest apart.
 */
export type Family =
  | 'rows hash'
  | 'campaign (hash, timeline, history)'
  | 'message-ID index'
  | 'duplicate guard (sent)'
  | 'messaging-limit reach'
  | 'user IDs (portfolio links, users)'
  | 'BullMQ jobs (kept completed) and sets'
  | 'BullMQ events stream'
  | 'webhooks (inbox, stats)'
  | 'events streams'
  | 'metrics'
  | 'other';

export const FAMILIES: readonly Family[] = [
  'rows hash',
  'campaign (hash, timeline, history)',
  'message-ID index',
  'duplicate guard (sent)',
  'messaging-limit reach',
  'user IDs (portfolio links, users)',
  'BullMQ jobs (kept completed) and sets',
  'BullMQ events stream',
  'webhooks (inbox, stats)',
  'events streams',
  'metrics',
  'other',
];

/** First match wins: the order puts the narrow patterns before the wide ones. `send(-<number>)`: the product's queue, or the bare one. */
const RULES: readonly [RegExp, Family][] = [
  [/:campaign:<id>:(rows|values)(:|$)/, 'rows hash'],
  [/:campaign:<id>(:|$)/, 'campaign (hash, timeline, history)'],
  [/:wamids(:|$)/, 'message-ID index'],
  [/:sent:<number>(:map(:<n>)?)?$/, 'duplicate guard (sent)'],
  [/:reach(-pending)?:/, 'messaging-limit reach'],
  [/:user:(links|users|seen|pending)(:|$)/, 'user IDs (portfolio links, users)'],
  [/:send(-<number>)?:events$/, 'BullMQ events stream'],
  [/:send(-<number>)?:/, 'BullMQ jobs (kept completed) and sets'],
  [/:webhooks:/, 'webhooks (inbox, stats)'],
  [/:events(:|$)/, 'events streams'],
  [/:metrics(:|$)|:stats(:|$)/, 'metrics'],
];

export function familyOf(pattern: string): Family {
  return RULES.find(([test]) => test.test(pattern))?.[1] ?? 'other';
}

export interface PatternBytes {
  pattern: string;
  family: Family;
  keys: number;
  bytes: number;
}

export interface Census {
  patterns: PatternBytes[];
  byFamily: Record<Family, number>;
  /** Sum of MEMORY USAGE over every key. */
  keyBytes: number;
}

export function patternOf(key: string, names: { prefix: string; campaignIds: readonly string[]; numbers: readonly string[] }): string {
  let pattern = key.split(names.prefix).join('<prefix>');
  for (const id of names.campaignIds) pattern = pattern.split(id).join('<id>');
  for (const number of names.numbers) pattern = pattern.split(number).join('<number>');
  // Job and row numbers, and the hex of hash buckets and digests (a run of hex with a digit in it: no word of a name has one).
  return pattern.replace(/[0-9a-f]*[0-9][0-9a-f]*/g, '<n>');
}

export async function census(
  redis: Redis,
  names: { prefix: string; campaignIds: readonly string[]; numbers: readonly string[] },
): Promise<Census> {
  const byPattern = new Map<string, { keys: number; bytes: number }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', 0);
    const sizes = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      const pattern = patternOf(key, names);
      const entry = byPattern.get(pattern) ?? { keys: 0, bytes: 0 };
      entry.keys += 1;
      entry.bytes += Number(sizes[i]?.[1] ?? 0);
      byPattern.set(pattern, entry);
    });
  } while (cursor !== '0');
  const patterns = [...byPattern].map(([pattern, v]) => ({ pattern, family: familyOf(pattern), ...v })).sort((a, b) => b.bytes - a.bytes);
  const byFamily = Object.fromEntries(FAMILIES.map((f) => [f, 0])) as Record<Family, number>;
  for (const p of patterns) byFamily[p.family] += p.bytes;
  return { patterns, byFamily, keyBytes: patterns.reduce((sum, p) => sum + p.bytes, 0) };
}

/** The INFO memory fields that say where bytes outside the keys went, read at one moment. */
export interface MemoryInfo {
  usedMemory: number;
  /** The keyspace's own tables, clients' buffers, replication and scripts (Redis's estimate). */
  overhead: number;
  /** The cached scripts' bodies (part of used_memory; the Lua VM's own heap, used_memory_vm_eval, is not). */
  scripts: number;
  clients: number;
  keys: number;
}

/**
 * What Redis's per-command statistics hold (Redis 7 keeps a latency histogram for each command
 * once it has run: about 25 KB each), as the used_memory CONFIG RESETSTAT frees: once a Redis, not
 * per row. Read last: the run's private Redis is about to stop.
 */
export async function commandStatsBytes(redis: Redis): Promise<number> {
  const used = async () => (await memoryInfo(redis)).usedMemory;
  const before = await used();
  await redis.config('RESETSTAT');
  return before - (await used());
}

export async function memoryInfo(redis: Redis): Promise<MemoryInfo> {
  const [memory, keyspace] = await Promise.all([redis.info('memory'), redis.info('keyspace')]);
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(memory)?.[1] ?? 0);
  return {
    usedMemory: field('used_memory'),
    overhead: field('used_memory_overhead'),
    scripts: field('used_memory_scripts_eval'),
    clients: field('mem_clients_normal'),
    keys: Number(/keys=(\d+)/.exec(keyspace)?.[1] ?? 0),
  };
}
