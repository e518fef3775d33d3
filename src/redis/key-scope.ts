import type { Cluster, Redis } from 'ioredis';

/** A connection to one Redis or to a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisClient = Redis | Cluster;

/**
 * Where every key of one phone number lives: its queue, its campaigns' ledgers, its duplicate
 * guard, its feed, its opt-outs, its webhook index. The `{…}` hash tag puts them all in one
 * cluster slot, so every Lua script and transaction stays in one slot, and different numbers
 * spread over the masters. On a single Redis the tag is just part of the name.
 */
export function numberScope(prefix: string, phoneNumberId: string): string {
  // An unknown campaign's number is '': `{}` would hash each whole key to its own slot, so
  // the keys of such a call (they name nothing) get a tag of their own too.
  return `${prefix}:{${phoneNumberId === '' ? '_' : phoneNumberId}}`;
}

/**
 * Where the keys shared by every number live that are written together in one transaction:
 * the metrics and the webhook inbox, its parked statuses and its stats (the consumer
 * acknowledges a batch and adds its metrics in one MULTI). One tag, `{<prefix>}`, one slot.
 */
export function sharedScope(prefix: string): string {
  return `${prefix}:{${prefix}}`;
}
